import { mkdirSync, mkdtempSync, rmdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { parseConfig } from '../../src/config/loader.js';
import { Limiter } from '../../src/limit/index.js';
import { createLogger } from '../../src/log.js';
import { QuotaJournal, type JournalEvent } from '../../src/state/quota-journal.js';
import { VirtualTime } from '../limit/virtual-time.js';

/** The /healthz condition of the quota journal (src/telemetry/limiter-reports.ts). */
const JOURNAL_CONDITION = 'state:quota-journal';
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** A limiter of 1 call per second on virtual time over `journal`, and three calls: two are granted by its timer. */
async function threeCalls(vt: VirtualTime, limiter: Limiter): Promise<string[]> {
  return vt.run(Promise.all([1, 2, 3].map(() => limiter.run(async () => 'ok'))));
}

describe('the quota journal cannot be written (full disk, read-only state dir)', () => {
  it('a real write failure (the temp path is a directory) fails no call, leaks no slot, and heals', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-io-'));
    mkdirSync(join(dir, 'quota-calls.json.tmp'));
    const vt = new VirtualTime();
    const events: JournalEvent[] = [];
    const journal = new QuotaJournal(dir, { clock: vt, onEvent: (e) => events.push(e) });
    const limiter = new Limiter('statistic', { calls: 1, periodMs: 1000 }, { clock: vt, sleep: vt.sleep, journal });
    expect(await threeCalls(vt, limiter)).toEqual(['ok', 'ok', 'ok']);
    await journal.flush();
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(events.map((e) => e.type)).toEqual(['write-failed']);
    expect((events[0] as { error: NodeJS.ErrnoException }).error.code).toBe('EISDIR');

    rmdirSync(join(dir, 'quota-calls.json.tmp'));
    expect(await vt.run(limiter.run(async () => 'ok'))).toBe('ok');
    await journal.flush();
    expect(events.map((e) => e.type)).toEqual(['write-failed', 'write-recovered']);
    expect(new QuotaJournal(dir, { clock: vt }).history('statistic', vt).completedAt).toHaveLength(4);
  });

  it('a full disk (injected ENOSPC) is reported once as it lasts; the file catches up when space is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-io-'));
    const vt = new VirtualTime();
    let full = true;
    const events: JournalEvent[] = [];
    const journal = new QuotaJournal(dir, {
      clock: vt,
      write: async (path, data) => {
        if (full) throw enospc();
        await writeFile(path, data);
      },
      onEvent: (e) => events.push(e),
    });
    const limiter = new Limiter('dvr', { calls: 1, periodMs: 1000 }, { clock: vt, sleep: vt.sleep, journal });
    await threeCalls(vt, limiter);
    await threeCalls(vt, limiter);
    await journal.flush();
    expect(events.map((e) => e.type)).toEqual(['write-failed']);
    full = false;
    await journal.flush();
    expect(events.map((e) => e.type)).toEqual(['write-failed', 'write-recovered']);
    expect(new QuotaJournal(dir, { clock: vt }).history('dvr', vt).completedAt).toHaveLength(6);
  });

  it('the daemon shows it in /healthz (503 condition) and the log, and clears it once a write succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qj-rt-'));
    const stateDir = join(dir, 'state');
    mkdirSync(join(stateDir, 'quota-calls.json.tmp'), { recursive: true });
    const config = parseConfig(
      {
        api: { baseUrl: 'http://127.0.0.1:9', token: 'journal-test-token' },
        accounts: ['acme'],
        sink: { type: 'file', path: join(dir, 'out.lp') },
        state: { dir: stateDir },
      },
      {},
    );
    const lines: string[] = [];
    const log = createLogger('debug', { pretty: false, destination: { write: (s: string) => lines.push(s) } as never });
    const rt = await createRuntime(config, systemClock, log);
    try {
      await rt.limiters.run('dvr', async () => ({ status: 200 }));
      await vi.waitFor(() =>
        expect(rt.telemetry.activeConditions()[JOURNAL_CONDITION]).toContain('quota-calls.json.tmp'),
      );
      expect(lines.join('')).toContain('"event":"quota_journal_unwritten"');

      rmdirSync(join(stateDir, 'quota-calls.json.tmp'));
      await rt.limiters.run('dvr', async () => ({ status: 200 }));
      await vi.waitFor(() => expect(rt.telemetry.activeConditions()[JOURNAL_CONDITION]).toBeUndefined());
    } finally {
      await rt.close();
    }
  });
});
