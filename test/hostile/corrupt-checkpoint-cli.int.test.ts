/**
 * A damaged checkpoint (here one claiming [0, 8e15) is collected, which would make its job collect nothing, silently)
 * stops every command that opens the state: exit 1, one line naming the file and the repair, no stack trace, and
 * state.lock released.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { DAY } from '../../src/time.js';
import { runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';
import { writeSimConfig } from '../helpers/collector.js';

describe('a corrupt checkpoint stops the CLI with one line', () => {
  const s = useSimulator();

  it.each([
    ['run', []],
    ['run --once', ['--once']],
    ['backfill', ['--from', new Date(Date.now() - 2 * DAY).toISOString()]],
  ])(
    '%s exits 1 naming the file, the copy kept and the repair',
    async (name, extra) => {
      const dir = mkdtempSync(join(tmpdir(), 'hostile-cp-'));
      const state = join(dir, 'state');
      mkdirSync(state);
      const key = 'metrics/acme';
      const file = join(state, fileNameOf(key));
      writeFileSync(file, JSON.stringify({ version: 1, key, watermark: 8e15, confirmedAt: null, spans: [[0, 8e15]] }));
      const config = writeSimConfig(dir, s.sim, { state: { dir: state }, log: { level: 'error' } });
      // A command still running after 8 s (a daemon that did not refuse) is killed: code null.
      const r = await runCli([name.split(' ')[0]!, '--config', config, ...extra], {}, { killAfterMs: 8000 }).exited;
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          /^error: checkpoint file .* is corrupt \(.*\); a copy is kept as .*\.corrupt-[0-9a-f]+\. /.source +
            /To repair: move it away/.source,
        ),
      );
      expect(lines[0]).toContain(file);
      expect(existsSync(join(state, 'state.lock'))).toBe(false);
      expect(readdirSync(state).filter((n) => n.includes('.corrupt-'))).toHaveLength(1);
    },
    15_000,
  );
});
