import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOGIN_REFUSALS_FILE, LoginRefusalFile, readLoginRefusals } from '../../src/state/login-refusals.js';

const entry = (refused: number) => ({ refused, since: 1_000, lastAt: 2_000 });

describe('login-refusals.json', () => {
  it('keeps one entry per username, no other field; a success of one leaves the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refusals-'));
    const a = new LoginRefusalFile(dir, 'ops@example');
    const b = new LoginRefusalFile(dir, 'backup@example');
    expect(await a.update(() => entry(2))).toEqual(entry(2));
    await b.update(() => entry(1));
    await a.update(() => undefined);
    expect(await readLoginRefusals(dir)).toEqual({ 'backup@example': entry(1) });
    expect(JSON.parse(readFileSync(join(dir, LOGIN_REFUSALS_FILE), 'utf8'))).toEqual({
      version: 1,
      usernames: { 'backup@example': entry(1) },
    });
  });

  it('is not created by a command whose logins succeed', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'refusals-')), 'state');
    await new LoginRefusalFile(dir, 'ops@example').update(() => undefined);
    expect(existsSync(dir)).toBe(false);
  });

  it('damaged: reported, a copy kept, the count goes on in memory and is saved over it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refusals-'));
    writeFileSync(join(dir, LOGIN_REFUSALS_FILE), '{"version":1,"usernames":{"ops@example":{"refused":"many"}}}');
    const problems: string[] = [];
    const file = new LoginRefusalFile(dir, 'ops@example', (p) => problems.push(p));
    expect(await file.read()).toBeUndefined();
    expect(problems[0]).toContain(LOGIN_REFUSALS_FILE);
    expect(readdirSync(dir).some((name) => name.startsWith(`${LOGIN_REFUSALS_FILE}.corrupt-`))).toBe(true);
    await file.update(() => entry(1));
    expect((await readLoginRefusals(dir))['ops@example']).toEqual(entry(1));
  });
});
