import { readFile, stat } from 'node:fs/promises';
import { isHeaderSafe, registerSecret } from '../secrets.js';
import { TokenFileError, UNSENDABLE_TOKEN } from './errors.js';
import type { TokenProvider } from '../http/token-provider.js';
import type { AuthEvent } from './events.js';

/**
 * A token kept in a file by someone else (a secret manager, a sidecar, a cron job): its first line, re-read when the
 * file's mtime or size changes (checked before every call: one stat) and when a call is refused (an mtime may not
 * move within its resolution). While the file is briefly empty or missing (a non-atomic rewrite), the last token
 * read is kept.
 */
export class FileTokenProvider implements TokenProvider {
  private token: string | undefined;
  private version: string | undefined;
  /** The last read failed: the next good read is reported even if the token did not change. */
  private failing = false;

  readonly source = 'api.tokenFile (CDN_TOKEN_FILE)';

  constructor(
    readonly path: string,
    private readonly onEvent: (e: AuthEvent) => void = () => {},
  ) {}

  /**
   * A refusal re-reads the file, and a retry follows only if it holds another token: whoever writes the file must
   * act, so the refusal is reported as theirs to fix even when a new token was already there.
   */
  willRenew(): boolean {
    return false;
  }

  async current(): Promise<string> {
    let version: string | undefined;
    try {
      const s = await stat(this.path);
      version = `${s.mtimeMs}:${s.size}`;
    } catch (err) {
      return this.keepOrFail(`cannot stat (${codeOf(err)})`);
    }
    if (this.token !== undefined && version === this.version) return this.token;
    return this.read(version);
  }

  async renew(refused: string): Promise<string> {
    const token = await this.read(undefined);
    return token === refused ? refused : token;
  }

  private async read(version: string | undefined): Promise<string> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      return this.keepOrFail(`cannot read (${codeOf(err)})`);
    }
    const token = text.split(/\r?\n/)[0]!.trim();
    if (!token) return this.keepOrFail('is empty');
    registerSecret(token);
    if (!isHeaderSafe(token)) return this.keepOrFail(UNSENDABLE_TOKEN);
    if (token !== this.token || this.failing) this.onEvent({ type: 'obtained', source: 'file' });
    this.failing = false;
    this.token = token;
    this.version = version;
    return token;
  }

  private keepOrFail(problem: string): string {
    const error = new TokenFileError(this.path, problem);
    this.failing = true;
    this.onEvent({ type: 'failed', source: 'file', error });
    if (this.token !== undefined) return this.token;
    throw error;
  }
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}
