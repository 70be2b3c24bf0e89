import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../src/http/errors.js';
import { DvrClient } from '../../src/sources/dvr/client.js';
import { useSimInProcess, simClient } from '../helpers/in-process.js';

/**
 * The limiter's quota proof assumes the server counts a call between its send and its completion. A slow answer must
 * therefore be counted on arrival: were it counted when the delay ends, a call the client gave up on (timeout) would
 * land in a later quota window than the client accounted it to, and a correct client would see quota 429s.
 */
describe('simulator: a slow fault delays the answer, not the arrival', () => {
  const s = useSimInProcess({ faults: { dvr: { script: ['slow'], slowMs: 1500 } } });

  it('counts the call against the quota before the client times out', async () => {
    const http = simClient(s.sim, { token: s.sim.token, timeoutMs: 300 });
    const sent = Date.now();
    const [account, stream] = [s.sim.streams[0]!.account, s.sim.streams[0]!.stream];
    await expect(new DvrClient(http).get(account, stream)).rejects.toBeInstanceOf(TimeoutError);
    const gaveUp = Date.now();
    await http.close();
    const admitted = s.sim.stats.apis.dvr.admittedAt;
    expect(admitted).toHaveLength(1);
    expect(admitted[0]).toBeGreaterThanOrEqual(sent);
    expect(admitted[0]).toBeLessThanOrEqual(gaveUp);
  });
});
