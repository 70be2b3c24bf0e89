import { type Command, CommanderError } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { backfillCommand } from '../../src/cli/backfill/backfill.js';
import { verifyCommand } from '../../src/cli/verify/verify.js';
import { DAY, HOUR, MINUTE, parseIsoTime, toMs } from '../../src/time.js';
import { parseTimeText } from '../../src/time-text.js';

/** What JavaScript's Date.parse turns into some date (2001, 11 January, …) and no time option may accept. */
const NOT_TIMES = [
  '-5',
  '1.5',
  'Nov 23',
  '01/11/2026',
  'yesterday 5',
  '2026',
  '2026-11',
  '2026-02-30',
  '2026-11-23T25:00Z',
  '',
];

describe('strict ISO 8601 times', () => {
  it.each([...NOT_TIMES, 'yesterday', 'now'])('%j is not an ISO 8601 time (API answers)', (text) => {
    expect(parseIsoTime(text)).toBeUndefined();
    expect(toMs(text)).toBeNaN();
  });

  it.each([
    ['2026-11-23', Date.UTC(2026, 10, 23)],
    ['2026-11-23T10:00', Date.UTC(2026, 10, 23, 10)],
    ['2026-11-23T10:00:00', Date.UTC(2026, 10, 23, 10)],
    ['2026-11-23T10:00:00Z', Date.UTC(2026, 10, 23, 10)],
    ['2026-11-23T10:00:00.250Z', Date.UTC(2026, 10, 23, 10, 0, 0, 250)],
    ['2026-11-23T13:00:00+03:00', Date.UTC(2026, 10, 23, 10)],
    ['2026-11-23T08:30:00-0130', Date.UTC(2026, 10, 23, 10)],
  ])('%j is %d (no zone = UTC)', (text, ms) => {
    expect(parseIsoTime(text)).toBe(ms);
    expect(toMs(text)).toBe(ms);
  });
});

describe('typed times: one grammar', () => {
  const NOW = Date.UTC(2026, 10, 26, 6, 44, 27, 707);
  const SECOND = Date.UTC(2026, 10, 26, 6, 44, 27);
  const TODAY = Date.UTC(2026, 10, 26);

  it.each([
    ['now', SECOND],
    ['now-24h', SECOND - DAY],
    ['now+90m', SECOND + 90 * MINUTE],
    ['-7d', SECOND - 7 * DAY],
    ['+30s', SECOND + 30_000],
    ['today', TODAY],
    ['yesterday', TODAY - DAY],
    ['today+6h', TODAY + 6 * HOUR],
    ['yesterday-1d', TODAY - 2 * DAY],
    ['1795658400', 1795658400_000],
    ['2026-11-23T13:00:00+03:00', Date.UTC(2026, 10, 23, 10)],
  ])('%j at 2026-11-26T06:44:27.707Z is %d (today and yesterday start at 00:00 UTC)', (text, ms) => {
    expect(parseTimeText(text, NOW)).toEqual({ ms });
  });

  it.each<[string, RegExp]>([
    ['1795658400000', /^looks like milliseconds: unix seconds have 10 digits \(1795658400 is 2026-11-26T02:00:00Z\)$/],
    ['2026', /not unix seconds, which have 10 digits/],
    ['179565840', /not unix seconds, which have 10 digits/],
    ...[
      'now-5',
      'now - 1h',
      'Now',
      'today-1w',
      'now-1.5h',
      'now-1h30m',
      'tomorrow',
      'yesterday 5',
      '-5',
      'now-',
      '',
    ].map((text): [string, RegExp] => [text, /^must be a time: ISO 8601 .*now-24h, -7d/]),
    ['now-99999999999d', /out of range/],
  ])('%j is refused: %s', (text, message) => {
    const time = parseTimeText(text, NOW);
    expect('error' in time && time.error).toMatch(message);
  });
});

/** Parses the arguments only (a bad time fails before the config is read); `options` are what the action was given. */
async function parse(
  command: Command,
  args: string[],
): Promise<{ error?: CommanderError; stderr: string; options?: Record<string, unknown> }> {
  let stderr = '';
  let options: Record<string, unknown> | undefined;
  command
    .exitOverride()
    .configureOutput({ writeErr: (s) => (stderr += s), writeOut: () => {} })
    .action((o: Record<string, unknown>) => void (options = o));
  try {
    await command.parseAsync(['--config', '/nonexistent.yaml', ...args], { from: 'user' });
    return { stderr, ...(options ? { options } : {}) };
  } catch (err) {
    return { error: err as CommanderError, stderr };
  }
}

describe.each([
  ['backfill', backfillCommand],
  ['verify', verifyCommand],
])('%s --from/--to', (_name, command) => {
  it('--from in milliseconds is a usage error with the hint', async () => {
    const { error, stderr } = await parse(command(), ['--from', '1795658400000']);
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toMatch(/--from looks like milliseconds: unix seconds have 10 digits \(1795658400 is /);
  });

  it('takes relative times, also a bare offset that starts with a dash', async () => {
    // The clock stands still: --from and --to are read at the same now.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 26, 6, 44, 27, 707) });
    try {
      const { options, stderr } = await parse(command(), ['--from', '-7d', '--to=today']);
      expect(stderr).toBe('');
      expect(options).toMatchObject({ from: Date.UTC(2026, 10, 19, 6, 44, 27), to: Date.UTC(2026, 10, 26) });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('backfill --from/--to', () => {
  const parseBackfill = (args: string[]) => parse(backfillCommand(), args);

  it.each(NOT_TIMES.filter(Boolean))('--from %j is a usage error naming --from', async (text) => {
    const { error, stderr } = await parseBackfill(['--from', text]);
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toMatch(/--from/);
  });

  it('--to "Nov 23" is a usage error naming --to', async () => {
    const { error, stderr } = await parseBackfill(['--from', '2026-11-01T00:00:00Z', '--to', 'Nov 23']);
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toMatch(/--to/);
  });
});
