import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator, type SimulatorCore, type Simulator, type SimulatorOptions } from './simulator.js';

export { defaultSettings, type Simulator, type SimulatorOptions } from './simulator.js';

/** The simulator as an HTTP server on `options.host`:`options.port` (default 127.0.0.1, a free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  let core: SimulatorCore | undefined;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const answer = await core!.answer({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
      });
      if ('reset' in answer) req.socket.destroy();
      else res.writeHead(answer.status, answer.headers).end(answer.body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  core = createSimulator(options, `http://${host}:${address.port}`);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return Object.assign(core, { close });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
