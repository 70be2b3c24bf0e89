import { Command, InvalidArgumentError } from 'commander';
import { ScaledClock, systemClock } from '../clock.js';
import { isApiName, type ApiName } from '../spec/apis.js';
import { parseFaultFlag, type FaultPlan } from '../sim/faults.js';
import type { QuotaRule } from '../sim/quota.js';
import { startSimulator } from '../sim/server.js';
import { collect, parseDuration, parseIntArg } from './common.js';

/** `api=N/period`, e.g. `statistic=5/2s` or `metrics=off`. */
function parseQuota(text: string, previous: Record<string, QuotaRule | null> = {}): Record<string, QuotaRule | null> {
  const m = /^([a-z0-9-]+)=(?:(off)|(\d+)\/(\S+))$/.exec(text);
  if (!m || !isApiName(m[1]!)) throw new InvalidArgumentError(`--quota: expected api=N/period (e.g. statistic=5/2s) or api=off, got "${text}"`);
  const rule = m[2] ? null : { calls: Number(m[3]), periodMs: parseDuration(m[4]!) };
  if (rule && (rule.calls < 1 || rule.periodMs <= 0)) throw new InvalidArgumentError('--quota: calls and period must be positive');
  return { ...previous, [m[1]!]: rule };
}

export function simCommand(): Command {
  return new Command('sim')
    .description('Run the simulator of all four APIs on 127.0.0.1; prints one JSON line {url, token, accounts, streams}')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', parseIntArg('--port'), 0)
    .option('--seed <n>', 'seed of the deterministic data', parseIntArg('--seed'), 42)
    .option('--accounts <n>', 'number of accounts', parseIntArg('--accounts', 1), 2)
    .option('--resources <n>', 'resources per account', parseIntArg('--resources', 1), 3)
    .option('--streams <n>', 'streams per account', parseIntArg('--streams', 1), 3)
    .option('--nodes <n>', 'DVR nodes', parseIntArg('--nodes', 1), 3)
    .option('--quota <api=N/period>', 'quota per token, repeatable (statistic=5/2s, metrics=off)', parseQuota)
    .option('--fault <api=kinds:rate>', 'inject faults, repeatable (statistic=500,504:0.2, all=reset:0.1)', collect)
    .option('--failing-node <node>', 'DVR node on which deletions fail, repeatable', collect)
    .option('--statistic-lag <duration>', 'how long statistics keep growing after a minute ends', parseDuration)
    .option('--clock-speed <x>', 'run the simulated clock x times faster than real time', Number)
    .option('--token <token>', 'main token (default: derived from the seed)')
    .option('--real-shapes', 'answer as the real service does: echoes as text, zone-less statistic times, numeric status, hex DVR node ids')
    .option('--streamstat-flat', 'stream views ignore granularity and answer the flat shape for the whole window')
    .option('--username <name>', 'enable the login POST /app/oauth/v1/token/ for this user (with --password)')
    .option('--password <password>', 'password of the login (a test credential: ps shows it)')
    .option('--token-lifetime <duration>', 'lifetime of each token the login issues (default 21599000 ms, ~6 h)', parseDuration)
    .action(async (o) => {
      const faults: Partial<Record<ApiName, FaultPlan>> = {};
      for (const flag of (o.fault as string[] | undefined) ?? []) {
        try {
          const { apis, plan } = parseFaultFlag(flag);
          for (const api of apis) faults[api] = plan;
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
      }
      const speed = o.clockSpeed as number | undefined;
      if (speed !== undefined && !(speed > 0)) throw new InvalidArgumentError('--clock-speed must be a positive number');
      if ((o.username === undefined) !== (o.password === undefined)) throw new InvalidArgumentError('--username and --password go together');
      if (o.tokenLifetime !== undefined && o.username === undefined) throw new InvalidArgumentError('--token-lifetime needs --username and --password');
      const sim = await startSimulator({
        host: o.host,
        port: o.port,
        seed: o.seed,
        token: o.token,
        ...(o.username !== undefined
          ? { login: { username: o.username, password: o.password, ...(o.tokenLifetime !== undefined ? { tokenLifetimeMs: o.tokenLifetime } : {}) } }
          : {}),
        world: { accounts: o.accounts, resourcesPerAccount: o.resources, streamsPerAccount: o.streams, nodes: o.nodes },
        quotas: o.quota,
        faults,
        clock: speed ? new ScaledClock(Date.now(), speed) : systemClock,
        settings: {
          ...(o.failingNode ? { failingDvrNodes: o.failingNode } : {}),
          ...(o.statisticLag !== undefined ? { statisticLagMs: o.statisticLag } : {}),
          ...(o.realShapes ? { shapes: 'real' as const } : {}),
          ...(o.streamstatFlat ? { streamstatShape: 'flat' as const } : {}),
        },
      });
      process.stdout.write(
        `${JSON.stringify({ url: sim.url, token: sim.token, accounts: sim.accounts, streams: sim.streams })}\n`,
      );
      const stop = () => void sim.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
