import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenFileError } from '../../src/auth/errors.js';
import type { AuthEvent } from '../../src/auth/events.js';
import { FileTokenProvider } from '../../src/auth/token-file.js';

function tokenFile(text: string) {
  const path = join(mkdtempSync(join(tmpdir(), 'token-file-')), 'token');
  writeFileSync(path, text);
  const events: AuthEvent[] = [];
  return { path, events, tokens: new FileTokenProvider(path, (e) => events.push(e)) };
}

describe('token file provider', () => {
  it('reads the first line and re-reads when the file changes', async () => {
    const { path, tokens } = tokenFile('first-token-value\n# comment\n');
    expect(await tokens.current()).toBe('first-token-value');
    writeFileSync(path, 'second-token-value\n');
    utimesSync(path, new Date(), new Date(Date.now() + 5000)); // a new mtime even on a coarse file system
    expect(await tokens.current()).toBe('second-token-value');
  });

  it('on a refusal re-reads the file even when its mtime did not move, and says when nothing changed', async () => {
    const { path, tokens } = tokenFile('first-token-value');
    const first = await tokens.current();
    const { mtime } = await import('node:fs').then((fs) => fs.statSync(path));
    writeFileSync(path, 'third-token-value');
    utimesSync(path, mtime, mtime);
    expect(await tokens.renew(first)).toBe('third-token-value');
    expect(await tokens.renew('third-token-value')).toBe('third-token-value'); // same token: the caller does not retry
  });

  it('keeps the last token while the file is briefly empty; without one, a TokenFileError naming it', async () => {
    const { path, tokens, events } = tokenFile('first-token-value');
    await tokens.current();
    writeFileSync(path, '');
    utimesSync(path, new Date(), new Date(Date.now() + 10_000));
    expect(await tokens.current()).toBe('first-token-value');
    expect(events.map((e) => e.type)).toEqual(['obtained', 'failed']);
    const missing = new FileTokenProvider(join(path, '..', 'nope'));
    const err = await missing.current().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenFileError);
    expect(err).toMatchObject({ code: 'CDN_ERR_TOKEN_FILE' });
    expect((err as Error).message).toContain('nope: cannot stat (ENOENT)');
  });
});
