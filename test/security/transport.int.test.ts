import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { ApiError, NetworkError } from '../../src/http/errors.js';
import type { ApiName } from '../../src/spec/apis.js';

const TOKEN = 'transport-secret-token';

interface Recorder {
  url: string;
  seen: Array<{ url: string; headers: IncomingHttpHeaders }>;
  server: Server;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A tiny server that records every request and answers with `answer`. */
async function recorder(
  server: Server,
  scheme: 'http' | 'https',
  answer: (res: import('node:http').ServerResponse) => void,
): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  server.on('request', (req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    answer(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const call = (http: HttpClient, api: ApiName) =>
  http.request({ api, method: 'GET', path: '/app/anything', query: { account: 'acme' }, schema: z.unknown() });

describe('a redirect is not followed with the token', () => {
  for (const [api, tokenPlacement] of [
    ['metrics', 'header'],
    ['statistic', 'query'],
  ] as const) {
    it(`${api}, token in the ${tokenPlacement}: 302 elsewhere is a typed error; that origin sees nothing`, async () => {
      const elsewhere = await recorder(createServer(), 'http', (res) => res.writeHead(200).end('{}'));
      const redirecting = await recorder(createServer(), 'http', (res) =>
        res.writeHead(302, { location: `${elsewhere.url}/steal?x=1` }).end(),
      );
      const http = new HttpClient({ baseUrl: redirecting.url, token: TOKEN, tokenPlacement });
      const err = await call(http, api).catch((e: unknown) => e);
      await http.close();
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(302);
      expect((err as ApiError).message).not.toContain(TOKEN);
      expect(redirecting.seen).toHaveLength(1);
      expect(elsewhere.seen).toEqual([]);
    });
  }
});

/** openssl is part of the CI image; without it a self-signed certificate cannot be made from Node alone. */
const opensslMissing = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return false;
  } catch {
    console.warn('SKIP: openssl not found; the TLS verification test needs it to make a self-signed certificate');
    return true;
  }
})();

describe.skipIf(opensslMissing)('TLS verification is on by default', () => {
  it('a self-signed certificate fails with a NetworkError before any request is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) });
    const https = await recorder(server, 'https', (res) => res.writeHead(200).end('{}'));
    const http = new HttpClient({ baseUrl: https.url, token: TOKEN });
    const err = await call(http, 'metrics').catch((e: unknown) => e);
    await http.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).causeCode).toMatch(/CERT|SELF_SIGNED/);
    expect((err as NetworkError).message).not.toContain(TOKEN);
    expect(https.seen).toEqual([]);
  });
});
