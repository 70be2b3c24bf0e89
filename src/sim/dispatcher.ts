import { Dispatcher } from '../http/undici.js';
import { createSimulator, type SimExchange, type Simulator, type SimulatorOptions } from './simulator.js';

/** A simulator answering in this process: no port, no socket; clients reach it through `dispatcher`. */
export interface InProcessSimulator extends Simulator {
  /** Give it to undici (`HttpClient`'s `dispatcher`, `createRuntime`'s) so that calls to `url` reach this simulator. */
  dispatcher: Dispatcher;
}

/** Size of the pieces an answer's body arrives in, as from a socket: readers see bodies split mid-element. */
const CHUNK_BYTES = 16 * 1024;

let created = 0;

/**
 * The simulator of `options` behind an undici Dispatcher: each request goes to the same handlers the HTTP server
 * runs (simulator.ts) and the answer comes back through undici's handler callbacks. An abort (deadline, signal)
 * settles the call at once; a `reset` fault fails it as a dropped connection does. Its `url` names no real host, so a
 * call that bypasses the dispatcher fails instead of reaching anything.
 */
export function inProcessSimulator(options: SimulatorOptions = {}): InProcessSimulator {
  created += 1;
  const core = createSimulator(options, `http://sim-${created}.in-process.invalid`);
  const dispatcher = new SimDispatcher((exchange) => core.answer(exchange));
  return Object.assign(core, { dispatcher, close: async () => {} });
}

class SimDispatcher extends Dispatcher {
  constructor(
    private readonly answer: (exchange: SimExchange) => ReturnType<ReturnType<typeof createSimulator>['answer']>,
  ) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      handler.onError?.(err);
    };
    handler.onConnect?.((reason) => fail(reason instanceof Error ? reason : new Error(String(reason))));
    void (async () => {
      const exchange: SimExchange = {
        method: options.method,
        url: options.path,
        headers: headerRecord(options.headers),
        body: await bodyText(options.body),
      };
      const answer = await this.answer(exchange);
      if (settled) return;
      if ('reset' in answer) return fail(socketClosed());
      const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
      const headers = { ...answer.headers, 'content-length': String(body.length) };
      const raw = Object.entries(headers).flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
      handler.onHeaders?.(answer.status, raw, () => {}, '');
      for (let at = 0; at < body.length && !settled; at += CHUNK_BYTES)
        handler.onData?.(body.subarray(at, at + CHUNK_BYTES));
      if (settled) return;
      settled = true;
      handler.onComplete?.([]);
    })().catch((err: unknown) => fail(err instanceof Error ? err : new Error(String(err))));
    return true;
  }

  override async close(): Promise<void> {}

  override async destroy(): Promise<void> {}
}

/** What undici reports for a connection the server closed without answering. */
function socketClosed(): Error {
  return Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
}

function headerRecord(headers: Dispatcher.DispatchOptions['headers']): SimExchange['headers'] {
  const out: Record<string, string | string[]> = {};
  const add = (name: string, value: string | string[] | undefined) => {
    if (value !== undefined) out[name.toLowerCase()] = value;
  };
  if (Array.isArray(headers))
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), String(headers[i + 1]));
  else if (headers && typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function')
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>) add(k, v);
  else if (headers) for (const [k, v] of Object.entries(headers)) add(k, v as string | string[] | undefined);
  return out;
}

async function bodyText(body: Dispatcher.DispatchOptions['body']): Promise<string> {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
