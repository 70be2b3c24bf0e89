import { ManualClock } from '../../src/clock.js';
import { HttpClient } from '../../src/http/client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/server.js';
import { DvrClient } from '../../src/sources/dvr/client.js';
import type { DvrRange, DvrRecord } from '../../src/sources/dvr/schemas.js';
import { reach } from '../helpers/in-process.js';

/**
 * 2026-03-02T10:05:00Z: five minutes into an hour, so the next minutes are free of simulated breaks (they start at
 * minute 10 or later), while earlier hours of the 4 h window have some.
 */
export const T0_MS = Date.UTC(2026, 2, 2, 10, 5, 0);
export const T0 = T0_MS / 1000;

export interface DvrFixture {
  sim: Simulator;
  clock: ManualClock;
  http: HttpClient;
  dvr: DvrClient;
  close(): Promise<void>;
}

/** A simulator on a manual clock without the DVR quota (the clock stands still, so every call would count). */
export async function startDvrFixture(options: SimulatorOptions = {}): Promise<DvrFixture> {
  const clock = new ManualClock(T0_MS);
  const sim = await startSimulator({ clock, quotas: { dvr: null }, ...options });
  const http = new HttpClient({ baseUrl: sim.url, token: sim.token, ...reach(sim.url) });
  return {
    sim,
    clock,
    http,
    dvr: new DvrClient(http),
    async close() {
      await http.close();
      await sim.close();
    },
  };
}

export function recordOf(data: DvrRecord[], host: string): DvrRecord {
  const record = data.find((r) => r.host === host);
  if (!record) throw new Error(`no record for ${host}`);
  return record;
}

/** Ranges of one node, as plain {from, duration} objects. */
export async function rangesOf(f: DvrFixture, account: string, stream: string, host: string): Promise<DvrRange[]> {
  const body = await f.dvr.get(account, stream);
  return recordOf(body.data, host).dvr.ranges.map((r) => ({ from: r.from, duration: r.duration }));
}

export const endOf = (r: DvrRange): number => r.from + r.duration;
