import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluateHealth, type HealthThresholds } from './health.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
import type { Telemetry } from './telemetry.js';

export interface TelemetryServerOptions extends HealthThresholds {
  telemetry: Telemetry;
  /** Default 127.0.0.1; the daemon passes its configured host (0.0.0.0 in containers). */
  host?: string;
  /** 0 = any free port. */
  port?: number;
}

export interface TelemetryServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `/healthz` (200 ok, 503 with a reason per lagging job), `/metrics` (Prometheus text), 404 for anything else. */
export async function startTelemetryServer(opts: TelemetryServerOptions): Promise<TelemetryServer> {
  const server = createServer((req, res) => handle(opts, req, res));
  // Scrapers keep connections alive; don't let them hold close() open.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function handle(opts: TelemetryServerOptions, req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== '/healthz' && path !== '/metrics') return send(res, 404, 'application/json', { error: `no route ${path}` });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'application/json', { error: `method ${req.method} not allowed` });
  }
  if (path === '/metrics') return send(res, 200, PROMETHEUS_CONTENT_TYPE, opts.telemetry.prometheus());
  const report = evaluateHealth(opts.telemetry, opts);
  send(res, report.status === 'ok' ? 200 : 503, 'application/json', report);
}

function send(res: ServerResponse, status: number, contentType: string, body: unknown): void {
  const text = typeof body === 'string' ? body : `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

/** The daemon's entry point: listener settings as in the `http` section of the configuration. */
export function startHealthServer(
  deps: { telemetry: Telemetry },
  http: { host?: string; port?: number; maxLag: number; jobMaxLag?: Record<string, number> },
): Promise<TelemetryServer> {
  return startTelemetryServer({
    telemetry: deps.telemetry,
    ...(http.host !== undefined ? { host: http.host } : {}),
    ...(http.port !== undefined ? { port: http.port } : {}),
    maxLagMs: http.maxLag,
    ...(http.jobMaxLag ? { jobMaxLagMs: http.jobMaxLag } : {}),
  });
}
