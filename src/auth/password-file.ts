import { readFileSync } from 'node:fs';
import { hasControlCharacter, registerSecret, withoutLineEnds } from '../secrets.js';
import { PasswordFileError } from './errors.js';

/**
 * The password file, read now (an unreadable or empty one throws PasswordFileError, so that the command stops before
 * any login) and again whenever the login asks: after refused credentials, a corrected file resumes the logins.
 * A later read that fails keeps the last password read.
 */
export function passwordFileReader(path: string): () => string {
  let last = readPasswordFile(path);
  return () => {
    try {
      last = readPasswordFile(path);
    } catch {
      // a file being rewritten: the last password stands
    }
    return last;
  };
}

function readPasswordFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PasswordFileError(path, `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const password = withoutLineEnds(text.split('\n')[0]!);
  registerSecret(password);
  if (!password) throw new PasswordFileError(path, 'is empty');
  if (hasControlCharacter(password)) throw new PasswordFileError(path, 'holds a control character in its first line');
  return password;
}
