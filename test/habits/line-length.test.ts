import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSource, longLines, MAX_COLUMNS } from '../../scripts/line-length.mjs';

/* `npm run lint` fails on a source line over 120 columns; these pin down what the check counts and what it reads. */

describe('the line-length check', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reports a 121-column line and passes a 120-column one, counting code points, not bytes', () => {
    dir = mkdtempSync(join(tmpdir(), 'line-length-'));
    const file = join(dir, 'sample.ts');
    const lines = ['const a = 1;', 'x'.repeat(121), 'y'.repeat(120), `// ${'é'.repeat(117)}`, `// ${'—'.repeat(118)}`];
    writeFileSync(file, `${lines.join('\n')}\n`);

    expect(MAX_COLUMNS).toBe(120);
    expect(longLines(file)).toEqual([
      { path: file, line: 2, columns: 121 },
      { path: file, line: 5, columns: 121 },
    ]);
  });

  it('covers TypeScript, JavaScript and bin/, and leaves out data, docs and build output', () => {
    for (const path of ['src/a.ts', 'scripts/b.mjs', 'bench/run.js', 'c.cjs', 'scripts/d.d.mts', 'bin/cdn-collector']) {
      expect(isSource(path), path).toBe(true);
    }
    for (const path of ['package.json', 'docs/schema.md', 'package-lock.json', 'dist/main.js', 'node_modules/x/i.js']) {
      expect(isSource(path), path).toBe(false);
    }
  });
});
