import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { CollectorConfig } from '../../config/schema.js';
import { SinkError } from '../../sink/errors.js';
import { HttpLineTransport, type HttpLineTransportOptions } from '../../sink/http-transport.js';
import { influxV1Transport } from '../../sink/influx-v1.js';
import { influxV2Transport } from '../../sink/influx-v2.js';
import { victoriaTransport } from '../../sink/victoria.js';
import { withoutUserinfo } from '../../secrets.js';
import { sinkFix } from '../../telemetry/sink-watch.js';

/** A check's answer: ok, or the reason it failed. */
export interface Verdict {
  ok: boolean;
  detail: string;
  /** What fixes a failed check, naming the setting: ` (…)` (see sinkFix). */
  fix?: string;
}

/** Deadline of the sink's check request: a database that does not answer in this long fails the check. */
const SINK_CHECK_TIMEOUT_MS = 10_000;

/**
 * Whether the configured sink can take a write, without writing a point: an HTTP sink gets an EMPTY write request,
 * which the server authenticates and routes to the database or bucket before it looks at the body (InfluxDB 1.x:
 * 204, or 404 for a missing database; 2.x: 400 "writing requires points" once the token and bucket passed, else
 * 401/403/404). A file sink's file (or nearest existing folder) must be writable.
 */
export async function probeSink(sink: CollectorConfig['sink']): Promise<Verdict> {
  const timeoutMs = SINK_CHECK_TIMEOUT_MS;
  switch (sink.type) {
    case 'file':
      return probeFile(sink.path);
    case 'influx-v1':
      return probeHttp(influxV1Transport({ ...sink, timeoutMs }), `database ${sink.database}`, sink);
    case 'influx-v2':
      return probeHttp(influxV2Transport({ ...sink, timeoutMs }), `bucket ${sink.bucket}`, sink);
    case 'victoriametrics':
      return probeHttp(
        victoriaTransport({ ...sink, timeoutMs }),
        `VictoriaMetrics at ${withoutUserinfo(sink.url)}: /api/v2/write`,
        sink,
      );
  }
}

async function probeHttp(
  options: HttpLineTransportOptions,
  target: string,
  sink: CollectorConfig['sink'],
): Promise<Verdict> {
  const transport = new HttpLineTransport(options);
  try {
    const rejection = await transport.send('');
    // 2.x refuses an empty body only after authorizing the write to an existing bucket.
    // Say what was checked: an empty write request, answered, so what it proves and no more.
    if (rejection === undefined) return { ok: true, detail: `${target}: an empty write request was accepted` };
    if (/requires points|no data/i.test(rejection.reason))
      return { ok: true, detail: `${target} exists and takes the credentials (an empty write passed authorization)` };
    return { ok: false, detail: `HTTP ${rejection.status}: ${rejection.reason}` };
  } catch (err) {
    if (!(err instanceof SinkError)) throw err;
    const fix = sinkFix(err, sink);
    if (err.status === 404) return { ok: false, detail: `${target} not found (HTTP 404${reasonOf(err)})`, fix };
    if (err.status === 401 || err.status === 403) {
      return { ok: false, detail: `credentials refused (HTTP ${err.status}${reasonOf(err)})`, fix };
    }
    return { ok: false, detail: err.message, fix };
  } finally {
    await transport.close();
  }
}

function reasonOf(err: SinkError): string {
  const text = err.message.split(/HTTP \d+: /)[1];
  return text && !/^HTTP \d+$/.test(text) ? `: ${text}` : '';
}

async function probeFile(path: string): Promise<Verdict> {
  if (path === '-') return { ok: true, detail: 'stdout' };
  const file = resolve(path);
  // The sink creates missing folders: the nearest one that exists must let it.
  let target = file;
  for (;;) {
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (exists || dirname(target) === target) break;
    target = dirname(target);
  }
  try {
    await access(target, constants.W_OK);
    return { ok: true, detail: `${path} is writable` };
  } catch (err) {
    return { ok: false, detail: `${target} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/**
 * After windows failed: the sink's own reason, when it is one — no such database or bucket (with the command that
 * creates it), credentials refused, nothing listening — probed with an empty write; undefined when the sink takes
 * writes (the failures were the API's).
 */
export async function sinkFailureCause(sink: CollectorConfig['sink']): Promise<string | undefined> {
  const verdict = await probeSink(sink);
  return verdict.ok ? undefined : `the sink takes no write: ${verdict.detail}${verdict.fix ?? ''}`;
}
