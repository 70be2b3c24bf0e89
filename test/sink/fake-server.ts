import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface RecordedRequest {
  url: string;
  headers: IncomingMessage['headers'];
  /** Body, gunzipped when sent with content-encoding gzip. */
  body: string;
}

export type Responder = (req: RecordedRequest) => { status: number; body?: string } | 'hang';

/** A tiny HTTP server that records write requests and answers as told; tracks the most requests open at once. */
export async function startFakeWriteServer(respond: Responder = () => ({ status: 204 })) {
  const requests: RecordedRequest[] = [];
  let open = 0;
  let maxOpen = 0;
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const recorded = { url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const answer = respond(recorded);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      // Answer on a later turn so concurrent requests really overlap.
      setImmediate(() => {
        open--;
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxOpen() {
      return maxOpen;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
