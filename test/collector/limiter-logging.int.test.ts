import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { parseConfig } from '../../src/config/loader.js';
import { ApiError, NetworkError, ResponseFormatError, TimeoutError } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';

const TOKEN = 'limiter-log-secret-token';

/** A config whose API is never reached: the tests hand the limiters their own failing sends. */
function configIn(dir: string, extra: Record<string, unknown> = {}) {
  return parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:9', token: TOKEN },
      accounts: ['acme'],
      sink: { type: 'file', path: join(dir, 'out.lp') },
      state: { dir: join(dir, 'state') },
      ...extra,
    },
    {},
  );
}

describe('limiter retries and give-ups are logged', () => {
  it('each retry at debug and the give-up at warn, with API, status and wait, never the token or body', async () => {
    const config = configIn(mkdtempSync(join(tmpdir(), 'limlog-')));
    const lines: string[] = [];
    const log = createLogger('debug', { pretty: false, destination: { write: (s: string) => lines.push(s) } as never });
    const rt = await createRuntime(config, systemClock, log);
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new ApiError({
        status: 503,
        body: { status: 'error', data: `overloaded, token ${TOKEN}` },
        request: { api: 'statistic', method: 'GET', url: `http://127.0.0.1:9/app/statistic/v3/?cdnauthtoken=${TOKEN}` },
      });
    };
    try {
      await expect(rt.limiters.run('statistic', failing, { deadlineMs: 1200 })).rejects.toBeInstanceOf(ApiError);
    } finally {
      await rt.close();
    }
    expect(attempts).toBeGreaterThan(1);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const retries = records.filter((r) => r.event === 'api_call_retry');
    expect(retries).toHaveLength(attempts - 1);
    for (const r of retries)
      expect(r).toMatchObject({
        level: 20,
        api: 'statistic',
        status: 503,
        code: 'CDN_ERR_API',
        waitMs: expect.any(Number),
      });
    // The API watch reads the same attempts and warns of the first failure; the give-up is the limiter's own line.
    const giveUps = records.filter((r) => r.event === 'api_call_gave_up');
    expect(giveUps).toHaveLength(1);
    expect(giveUps[0]).toMatchObject({ status: 503, attempt: attempts });
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('')).not.toContain('overloaded');
  });

  it("labels calls on /metrics by the error code's failure kind (docs/schema.md), not by a class name", async () => {
    // A quota the retries cannot spend, and a deadline the first slot cannot miss on a loaded machine (at 1 ms, a late
    // first grant threw the limiter's own deadline error): every call ends in its own error, retried or not.
    const quotas = { statistic: { calls: 1000, period: '1m' } };
    const rt = await createRuntime(
      configIn(mkdtempSync(join(tmpdir(), 'limlog-')), { quotas }),
      systemClock,
      createLogger('silent'),
    );
    const request = { api: 'statistic' as const, method: 'GET', url: 'http://127.0.0.1:9/app/statistic/v3/' };
    const failures = [
      new TimeoutError(request, 10),
      new NetworkError(request, 'ECONNRESET'),
      new ResponseFormatError(request, 'x', '', 'schema'),
    ];
    try {
      for (const err of failures)
        await expect(rt.limiters.run('statistic', () => Promise.reject(err), { deadlineMs: 1000 })).rejects.toBe(err);
    } finally {
      await rt.close();
    }
    const text = await rt.telemetry.prometheus();
    for (const kind of ['timeout', 'network', 'bad_response'])
      expect(text).toContain(`api_calls_total{api="statistic",status="${kind}"`);
    expect(text).not.toMatch(/status="\w*Error"/);
  });
});
