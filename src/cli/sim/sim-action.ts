import { ScaledClock, systemClock } from '../../clock.js';
import type { FaultPlan } from '../../sim/faults.js';
import type { QuotaRule } from '../../sim/quota.js';
import type { ApiName } from '../../spec/apis.js';
import { startSimulator } from '../../sim/server.js';
import { CliError, EXIT_USAGE, listenError } from '../common/common.js';
import { onStopSignal } from '../common/signals.js';

// What `sim` does, loaded only when it runs (sim.ts defines the command and parses its flags).

/** `sim`'s flags as commander parses them (sim.ts). */
export interface SimOptions {
  host: string;
  port: number;
  seed: number;
  accounts: number;
  resources: number;
  streams: number;
  nodes: number;
  quota?: Record<string, QuotaRule | null>;
  fault?: Partial<Record<ApiName, FaultPlan>>;
  failingNode?: string[];
  statisticLag?: number;
  clockSpeed?: number;
  token?: string;
  realShapes?: boolean;
  contentEncoding?: string;
  streamstatFlat?: boolean;
  username?: string;
  password?: string;
  tokenLifetime?: number;
  reuseTokens?: boolean;
  metricsRefusal?: string;
  metricsMaxPeriod?: number;
  /** False with --no-inventory. */
  inventory: boolean;
}

export async function simAction(o: SimOptions): Promise<void> {
  const speed = o.clockSpeed;
  const clock = systemClock;
  if ((o.username === undefined) !== (o.password === undefined))
    throw new CliError('--username and --password go together', EXIT_USAGE);
  if ((o.tokenLifetime !== undefined || o.reuseTokens) && o.username === undefined) {
    throw new CliError('--token-lifetime and --reuse-tokens need --username and --password', EXIT_USAGE);
  }
  const sim = await listening(
    () =>
      startSimulator({
        host: o.host,
        port: o.port,
        seed: o.seed,
        token: o.token,
        ...(o.username !== undefined && o.password !== undefined // together: checked above
          ? {
              login: {
                username: o.username,
                password: o.password,
                ...(o.tokenLifetime !== undefined ? { tokenLifetimeMs: o.tokenLifetime } : {}),
                ...(o.reuseTokens ? { reuseTokens: true } : {}),
              },
            }
          : {}),
        world: { accounts: o.accounts, resourcesPerAccount: o.resources, streamsPerAccount: o.streams, nodes: o.nodes },
        quotas: o.quota,
        faults: o.fault ?? {},
        clock: speed ? new ScaledClock(clock.now(), speed) : clock,
        settings: {
          ...(o.failingNode ? { failingDvrNodes: o.failingNode } : {}),
          ...(o.statisticLag !== undefined ? { statisticLagMs: o.statisticLag } : {}),
          ...(o.realShapes ? { shapes: 'real' as const } : {}),
          ...(o.streamstatFlat ? { streamstatShape: 'flat' as const } : {}),
          ...(o.contentEncoding !== undefined ? { contentEncoding: o.contentEncoding } : {}),
          ...(o.metricsRefusal !== undefined ? { metricsRefusal: o.metricsRefusal } : {}),
          ...(o.inventory === false ? { inventory: false } : {}),
          ...(o.metricsMaxPeriod !== undefined ? { metricsMaxPeriodMinutes: o.metricsMaxPeriod } : {}),
        },
      }),
    o.host,
    o.port,
  );
  process.stdout.write(
    `${JSON.stringify({ url: sim.url, token: sim.token, accounts: sim.accounts, streams: sim.streams })}\n`,
  );
  onStopSignal({ stop: () => void sim.close().then(() => process.exit(0)) });
}

/** The simulator started; a port in use or an address this host does not have is a message, not a stack (exit 1). */
async function listening<T>(start: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await start();
  } catch (err) {
    throw listenError(err, `${host}:${port}`, { port: `--port ${port}`, host: `--host ${host} --port ${port}` }) ?? err;
  }
}
