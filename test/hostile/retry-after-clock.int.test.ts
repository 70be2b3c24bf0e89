import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/loader.js';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { runtimeFor } from '../helpers/collector.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

/** Long past: on the system clock its Retry-After date is over, on a clock standing there it is two minutes away. */
const T = Date.parse('2024-03-01T12:00:00Z');

/**
 * A 429 whose Retry-After is an HTTP date is a wait on the clock the retries run on: the limiter adds it to that
 * clock's now, so it must be measured from that now too (a scaled or test clock is not the system's).
 */
describe('a Retry-After date is measured on the injected clock', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await loopbackServer((_req, res) =>
      json(res, { error: 'too many requests' }, 429, { 'retry-after': new Date(T + 120_000).toUTCString() }),
    );
  });
  afterAll(() => server.close());

  const refusal = (http: HttpClient): Promise<ApiError> =>
    http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/resources', schema: z.unknown() }).then(
      () => expect.unreachable('the server answers 429'),
      (err: unknown) => {
        expect(err).toBeInstanceOf(ApiError);
        return err as ApiError;
      },
    );

  it("by the client's clock", async () => {
    const http = new HttpClient({ baseUrl: server.url, token: 't', clock: new ManualClock(T) });
    try {
      expect((await refusal(http)).retryAfterSec).toBe(120);
    } finally {
      await http.close();
    }
  });

  it("by the runtime's clock, for the client the runtime builds", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retry-after-clock-'));
    const config = parseConfig(
      {
        api: { baseUrl: server.url, token: 't' },
        accounts: ['acme'],
        jobs: { dvr: { enabled: false } },
        sink: { type: 'file', path: join(dir, 'out.lp') },
        output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
        state: { dir: join(dir, 'state') },
      },
      {},
    );
    const rt = await runtimeFor(config, new ManualClock(T + 60_000));
    try {
      expect((await refusal(rt.http)).retryAfterSec).toBe(60);
    } finally {
      await rt.close();
    }
  });
});
