import { Command, InvalidArgumentError } from 'commander';
import { isApiName, type ApiName } from '../../spec/apis.js';
import { parseFaultFlag, type FaultPlan } from '../../sim/faults.js';
import type { QuotaRule } from '../../sim/quota.js';
import { collect, parseDuration, parseIntArg, parsePositive } from '../common/common.js';
import type { SimOptions } from './sim-action.js';

/** `api=kinds:rate` (repeatable), checked as it is parsed so a bad one is a usage error naming the option. */
function parseFault(
  text: string,
  previous: Partial<Record<ApiName, FaultPlan>> = {},
): Partial<Record<ApiName, FaultPlan>> {
  let parsed: ReturnType<typeof parseFaultFlag>;
  try {
    parsed = parseFaultFlag(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--fault: /, ''));
  }
  return { ...previous, ...Object.fromEntries(parsed.apis.map((api) => [api, parsed.plan])) };
}

/** `api=N/period`, e.g. `statistic=5/2s` or `metrics=off`. */
function parseQuota(text: string, previous: Record<string, QuotaRule | null> = {}): Record<string, QuotaRule | null> {
  const m = /^([a-z0-9-]+)=(?:(off)|(\d+)\/(\S+))$/.exec(text);
  if (!m || !isApiName(m[1]!))
    throw new InvalidArgumentError(`--quota: expected api=N/period (e.g. statistic=5/2s) or api=off, got "${text}"`);
  const rule = m[2] ? null : { calls: Number(m[3]), periodMs: parseDuration(m[4]!) };
  if (rule && (rule.calls < 1 || rule.periodMs <= 0))
    throw new InvalidArgumentError('--quota: calls and period must be positive');
  return { ...previous, [m[1]!]: rule };
}

export function simCommand(): Command {
  return (
    new Command('sim')
      .description(
        'Run the simulator of all four APIs on 127.0.0.1; prints one JSON line {url, token, accounts, streams}',
      )
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <port>', 'port (0 = any free port)', parseIntArg('--port', 0, 65535), 0)
      .option('--seed <n>', 'seed of the deterministic data', parseIntArg('--seed'), 42)
      .option('--accounts <n>', 'number of accounts', parseIntArg('--accounts', 1), 2)
      .option('--resources <n>', 'resources per account', parseIntArg('--resources', 1), 3)
      .option('--streams <n>', 'streams per account', parseIntArg('--streams', 1), 3)
      .option('--nodes <n>', 'DVR nodes', parseIntArg('--nodes', 1), 3)
      .option('--quota <api=N/period>', 'quota per token, repeatable (statistic=5/2s, metrics=off)', parseQuota)
      .option(
        '--fault <api=kinds:rate>',
        'inject faults, repeatable (statistic=500,504:0.2, all=reset:0.1)',
        parseFault,
      )
      .option('--failing-node <node>', 'DVR node on which deletions fail, repeatable', collect)
      .option('--statistic-lag <duration>', 'how long statistics keep growing after a minute ends', parseDuration)
      .option(
        '--clock-speed <x>',
        'run the simulated clock x times faster than real time',
        parsePositive('--clock-speed'),
      )
      .option('--token <token>', 'main token (default: derived from the seed)')
      .option(
        '--real-shapes',
        'answer as the real service does: echoes as text, zone-less statistic times, numeric status, hex DVR node ids',
      )
      .option(
        '--content-encoding <codings>',
        'compress answers: auto (gzip when asked), or codings applied in order (gzip, deflate, br, "gzip, br")',
      )
      .option('--streamstat-flat', 'stream views ignore granularity and answer the flat shape for the whole window')
      .option('--username <name>', 'enable the login POST /app/oauth/v1/token/ for this user (with --password)')
      .option('--password <password>', 'password of the login (a test credential: ps shows it)')
      .option(
        '--token-lifetime <duration>',
        'lifetime of each token the login issues (default 21599000 ms, ~6 h)',
        parseDuration,
      )
      .option('--reuse-tokens', 'a login while the token lives hands it back with the time it has left')
      .option('--metrics-refusal <text>', 'description of every metrics 403 (default: "Invalid token or no access")')
      .option(
        '--metrics-max-period <minutes>',
        'longest metrics period, answered 422 beyond it (default 10; 1 as one copy of the vendor page says)',
        parseIntArg('--metrics-max-period', 1),
      )
      .option('--no-inventory', 'no GET /app/inventory/v1/accounts/ (404), as on a white label without it')
      // The simulator loads when it runs, not for `sim --help` or an argument error.
      .action(async (o: SimOptions) => (await import('./sim-action.js')).simAction(o))
  );
}
