/**
 * The simulator in-process answers as the simulator over HTTP does: same statuses, headers that matter and bodies;
 * its faults reach the client as they would over a socket; a call's deadline settles it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { inProcessSimulator } from '../../src/sim/dispatcher.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';

const served: Simulator[] = [];
afterAll(() => Promise.all(served.map((s) => s.close())));

async function both() {
  const server = await startSimulator({ quotas: NO_QUOTAS });
  served.push(server);
  const local = inProcessSimulator({ quotas: NO_QUOTAS });
  return {
    server: { sim: server, http: new HttpClient({ baseUrl: server.url, token: server.token }) },
    local: {
      sim: local,
      http: new HttpClient({ baseUrl: local.url, token: local.token, dispatcher: local.dispatcher }),
    },
  };
}

const inventory = { api: 'inventory' as const, method: 'GET' as const, path: '/app/inventory/v1/accounts/' };

describe('the simulator through an undici Dispatcher', () => {
  it('answers a request as the HTTP server does: status, content type and body', async () => {
    const { server, local } = await both();
    const [a, b] = await Promise.all(
      [server, local].map((side) => side.http.request({ ...inventory, schema: z.unknown() })),
    );
    expect(b!.status).toBe(a!.status);
    expect(b!.headers['content-type']).toBe(a!.headers['content-type']);
    expect(b!.body).toEqual(a!.body);
  });

  it('refuses a wrong token with the same status', async () => {
    const { server, local } = await both();
    const clients = [
      new HttpClient({ baseUrl: server.sim.url, token: 'wrong' }),
      new HttpClient({ baseUrl: local.sim.url, token: 'wrong', dispatcher: local.sim.dispatcher }),
    ];
    const refused = await Promise.all(
      clients.map((http) => http.request({ ...inventory, schema: z.unknown() }).catch((err: unknown) => err)),
    );
    expect(refused.map((e) => (e as { status?: number }).status)).toEqual([401, 401]);
  });

  it('a reset fault fails the call as a dropped connection: a NetworkError with undici code', async () => {
    const { local } = await both();
    local.sim.faults.set('metrics', { script: ['reset'] });
    const call = local.http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/', schema: z.unknown() });
    await expect(call).rejects.toMatchObject({ code: 'CDN_ERR_NETWORK', causeCode: 'UND_ERR_SOCKET' });
  });

  it('a slow answer is cut by the call deadline: a TimeoutError, not a hang', async () => {
    const { local } = await both();
    local.sim.faults.set('metrics', { script: ['slow'], slowMs: 2_000 });
    const call = local.http.request({
      api: 'metrics',
      method: 'GET',
      path: '/app/metrics/v1/',
      schema: z.unknown(),
      timeoutMs: 50,
    });
    await expect(call).rejects.toMatchObject({ code: 'CDN_ERR_TIMEOUT' });
  });
});
