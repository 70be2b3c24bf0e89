import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluateHealth, type HealthThresholds } from './health.js';
import { renderProcessMetrics, startProcessMetrics } from './process-metrics.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus.js';
import type { Telemetry } from './telemetry.js';

export interface TelemetryServerOptions extends HealthThresholds {
  telemetry: Telemetry;
  /** Default 127.0.0.1; the daemon passes its configured host (0.0.0.0 in containers). */
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** Bounds on what one client can hold (tests shorten them). */
  limits?: Partial<ServerLimits>;
}

/**
 * The port may face anything that can reach it, so no client holds more than a bounded share: a header or body that
 * never finishes is cut off (408), oversized headers get 431, connections beyond the cap are dropped at accept.
 */
export interface ServerLimits {
  /** Whole request headers must arrive within this (slowloris). */
  headersTimeoutMs: number;
  /** The whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Larger request headers are answered 431. */
  maxHeaderBytes: number;
  /** Connections beyond this are closed as soon as accepted. */
  maxConnections: number;
  /** Requests served on one keep-alive connection before it is closed. */
  maxRequestsPerSocket: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 8 * 1024,
  maxConnections: 64,
  maxRequestsPerSocket: 1_000,
};

export interface TelemetryServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `/healthz` (200 ok, 503 with a reason per lagging job and per condition: failing API or sink, state not writable),
 * `/metrics` (Prometheus text: the collector's metrics, then process/runtime metrics and build info), 404 otherwise.
 */
export async function startTelemetryServer(opts: TelemetryServerOptions): Promise<TelemetryServer> {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...opts.limits };
  startProcessMetrics();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // How often node looks for connections past those deadlines (its default, 30 s, would outlast them).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, limits.headersTimeoutMs / 2)),
    },
    (req, res) => handle(opts, req, res),
  );
  // Scrapers keep connections alive; don't let them hold close() open.
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.maxConnections = limits.maxConnections;
  // A client that stops reading its response stalls the socket's writes: drop it once idle that long.
  server.timeout = limits.requestTimeoutMs;
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

/** Never throws: whatever the request, the client gets an answer and the process goes on. */
function handle(opts: TelemetryServerOptions, req: IncomingMessage, res: ServerResponse): void {
  route(opts, req, res).catch(() => {
    if (!res.headersSent) send(res, 500, 'application/json', { error: 'internal error' });
    else res.destroy();
  });
}

async function route(opts: TelemetryServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = pathOf(req.url);
  if (path === undefined) return send(res, 400, 'application/json', { error: 'malformed request target' });
  if (path !== '/healthz' && path !== '/metrics')
    return send(res, 404, 'application/json', { error: `no route ${path}` });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'application/json', { error: `method ${req.method} not allowed` });
  }
  if (path === '/metrics') {
    const [collector, runtime] = await Promise.all([opts.telemetry.prometheus(), renderProcessMetrics()]);
    return send(res, 200, PROMETHEUS_CONTENT_TYPE, `${collector}\n${runtime}`);
  }
  const report = evaluateHealth(opts.telemetry, opts);
  send(res, report.status === 'ok' ? 200 : 503, 'application/json', report);
}

/**
 * The path of a request target, undefined when it is neither a path nor a URL. Clients may send the absolute form
 * (`GET http://host:port/healthz`), whose host and port are whatever they typed: `http://x:99999/` must not throw.
 */
function pathOf(target: string | undefined): string | undefined {
  // Origin form is taken literally: `//evil/healthz` is a path, not a host.
  if (target?.startsWith('/')) return target.replace(/[?#].*$/s, '');
  return target && URL.canParse(target) ? new URL(target).pathname : undefined;
}

function send(res: ServerResponse, status: number, contentType: string, body: unknown): void {
  const text = typeof body === 'string' ? body : `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    'content-type': contentType,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

/** The daemon's entry point: listener settings as in the `http` section of the configuration. */
export function startHealthServer(
  deps: { telemetry: Telemetry },
  http: { host?: string; port?: number; maxLag: number; jobMaxLag: Record<string, number> },
): Promise<TelemetryServer> {
  return startTelemetryServer({
    telemetry: deps.telemetry,
    ...(http.host !== undefined ? { host: http.host } : {}),
    ...(http.port !== undefined ? { port: http.port } : {}),
    maxLagMs: http.maxLag,
    jobMaxLagMs: http.jobMaxLag,
  });
}
