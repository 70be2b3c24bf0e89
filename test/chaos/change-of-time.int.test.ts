import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { onlyJobs } from '../helpers/collector.js';
import { loopbackServer } from '../helpers/loopback.js';

/*
 * The daemon in a container whose zone has summer time (TZ=Europe/Berlin), its clock faked by libfaketime (a real
 * process, a real node-cron, a real time zone database): 60 faked seconds pass each second, from a few minutes before
 * a change of time. Its schedules are UTC, so the self-monitoring points (written every minute) have no gap.
 */

const BIN = resolve(import.meta.dirname, '../../bin/cdn-collector.js');
const FAKETIME = spawnSync('sh', ['-c', 'command -v faketime']).stdout.toString().trim();
const MINUTE = 60_000;

interface FakedDaemon {
  out: string;
  stop(): Promise<void>;
}

const running: FakedDaemon[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});

/** `run` under TZ=Europe/Berlin with its clock starting at `startUtc` and running 60 times fast; no API job. */
function fakedDaemon(startUtc: string, api = 'http://127.0.0.1:9', jobs = onlyJobs({})): FakedDaemon {
  const dir = mkdtempSync(join(tmpdir(), 'change-of-time-'));
  const out = join(dir, 'out.lp');
  const config = {
    api: { baseUrl: api, token: 'tok-change-of-time' },
    accounts: ['acme'],
    jobs,
    sink: { type: 'file', path: out },
    state: { dir: join(dir, 'state') },
  };
  writeFileSync(join(dir, 'collector.yaml'), stringify(config));
  const epoch = Math.floor(Date.parse(startUtc) / 1000);
  const child = spawn(
    FAKETIME,
    ['-f', `@${epoch} x60`, process.execPath, BIN, 'run', '--config', join(dir, 'collector.yaml')],
    {
      env: { ...process.env, TZ: 'Europe/Berlin', FAKETIME_FMT: '%s' },
      stdio: 'ignore',
      // faketime runs the daemon as its child: the stop signals the whole group, or the daemon outlives the test.
      detached: true,
    },
  );
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  const daemon = {
    out,
    stop: async () => {
      // The daemon first: faketime removes its shared memory (/dev/shm) once its child has exited, but signalled
      // itself it leaves it behind. The whole group only if the daemon is not there, or does not stop.
      const daemons = spawnSync('pgrep', ['-P', String(child.pid)])
        .stdout.toString()
        .split('\n')
        .filter(Boolean);
      const signal = (pid: number, name: NodeJS.Signals) => {
        try {
          process.kill(pid, name);
        } catch {
          // gone already
        }
      };
      if (daemons.length === 0) signal(-child.pid!, 'SIGTERM');
      for (const pid of daemons) signal(Number(pid), 'SIGTERM');
      const stuck = setTimeout(() => signal(-child.pid!, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(stuck);
    },
  };
  running.push(daemon);
  return daemon;
}

/** The minutes (epoch ms) that points were written at, once one at or after `until` is in the file. */
async function minutesWrittenUntil(out: string, until: number): Promise<number[]> {
  for (;;) {
    const times = existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => Math.floor(Number(BigInt(l.split(' ').at(-1)!) / 1_000_000n) / MINUTE) * MINUTE)
      : [];
    if (times.some((t) => t >= until)) return [...new Set(times)].sort((a, b) => a - b);
    await new Promise((r) => setTimeout(r, 200)); // the faked minutes pass in about a second each
  }
}

/** Every minute from the first written to `until`, each missing one named. */
function missingMinutes(minutes: number[], until: number): string[] {
  const missing: string[] = [];
  for (let t = minutes[0]!; t <= until; t += MINUTE) if (!minutes.includes(t)) missing.push(new Date(t).toISOString());
  return missing;
}

describe.skipIf(!FAKETIME)(
  'schedules across a change of time, TZ=Europe/Berlin (libfaketime; needs npm run build)',
  () => {
    it('the end of summer time (October, 03:00 CEST → 02:00 CET): a point every minute, none lost', async () => {
      const daemon = fakedDaemon('2026-10-25T00:56:30Z');
      const until = Date.parse('2026-10-25T01:05:00Z');
      const minutes = await minutesWrittenUntil(daemon.out, until);
      expect(missingMinutes(minutes, until)).toEqual([]);
    }, 60_000);

    it('the start of summer time (March, 02:00 CET → 03:00 CEST): a point every minute, none lost', async () => {
      const daemon = fakedDaemon('2026-03-29T00:56:30Z');
      const until = Date.parse('2026-03-29T01:05:00Z');
      const minutes = await minutesWrittenUntil(daemon.out, until);
      expect(missingMinutes(minutes, until)).toEqual([]);
    }, 60_000);

    it('a schedule with an hour (metrics at 12 1 * * *) runs at that hour UTC, not local time', async () => {
      // The metrics API answers nothing useful; what counts is when its windows are asked for. The start-up pass asks
      // up to the daemon's start, so the window 01:00–01:10 is asked for only by a pass after 01:10 UTC: the 01:12 one.
      let asked: () => void;
      const windowAsked = new Promise<void>((done) => (asked = done));
      const api = await loopbackServer((req, res) => {
        if (req.url?.includes('start=2026-03-29T01%3A00%3A00')) asked();
        res.writeHead(404).end();
      });
      try {
        fakedDaemon('2026-03-29T00:56:30Z', api.url, onlyJobs({ metrics: { schedule: '12 1 * * *' } }));
        await windowAsked;
      } finally {
        await api.close();
      }
    }, 60_000);
  },
);
