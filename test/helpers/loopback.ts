/**
 * A small HTTP server on 127.0.0.1 that answers however a test says: the way a broken or hostile API (or database)
 * would. `handler` gets node's raw request and response, so a test can send any status, header or body, stall, or
 * drop the connection. Closed with `close()` (connections included).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface LoopbackServer {
  url: string;
  port: number;
  /** Requests seen so far (method and URL), in arrival order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

export async function loopbackServer(
  handler: (req: IncomingMessage, res: ServerResponse, seen: number) => void | Promise<void>,
): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    Promise.resolve(handler(req, res, requests.length)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with `status` (default 200). */
export function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A port on 127.0.0.1 that something listens on for the test file (to test a listener that finds it taken). */
export function useTakenPort(): { readonly port: number } {
  let busy: NetServer | undefined;
  let port = 0;
  beforeAll(async () => {
    busy = createNetServer();
    await new Promise<void>((res) => busy!.listen(0, '127.0.0.1', res));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((res) => (busy ? busy.close(() => res()) : res())));
  return {
    get port() {
      return port;
    },
  };
}
