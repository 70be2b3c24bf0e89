import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { backfillCommand } from '../../src/cli/backfill.js';
import { parseIsoTime, toMs } from '../../src/time.js';

/** What JavaScript's Date.parse turns into some date (2001, 11 January, …) and no time option may accept. */
const NOT_TIMES = ['-5', '1.5', 'Nov 23', '01/11/2026', 'yesterday 5', 'yesterday', '2026', '2026-11', '2026-02-30', '2026-11-23T25:00Z', ''];

describe('strict ISO 8601 times', () => {
  it.each(NOT_TIMES)('%j is not a time', (text) => {
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

describe('backfill --from/--to', () => {
  /** Parses the arguments only (a bad time fails before the config is read). */
  async function parse(args: string[]): Promise<{ error?: CommanderError; stderr: string }> {
    let stderr = '';
    const command = backfillCommand()
      .exitOverride()
      .configureOutput({ writeErr: (s) => (stderr += s), writeOut: () => {} })
      .action(() => {});
    try {
      await command.parseAsync(['--config', '/nonexistent.yaml', ...args], { from: 'user' });
      return { stderr };
    } catch (err) {
      return { error: err as CommanderError, stderr };
    }
  }

  it.each(NOT_TIMES.filter(Boolean))('--from %j is a usage error naming --from', async (text) => {
    const { error, stderr } = await parse(['--from', text]);
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toMatch(/--from/);
  });

  it('--to "Nov 23" is a usage error naming --to', async () => {
    const { error, stderr } = await parse(['--from', '2026-11-01T00:00:00Z', '--to', 'Nov 23']);
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toMatch(/--to/);
  });
});
