import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The application layer (docs/design.md, Layout): app/ wires the folders below it and the commands (cli/) sit on top.
 * What app/ wires never imports it — backfill/ and verify/ run on host interfaces of their own — and app/ never reaches
 * up into cli/. Static imports, type imports and import() alike.
 */

const SRC = resolve('src');
const modules = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

/** `importer → imported` for every relative import of `module`, as paths below src/. */
function edgesOf(module: string): string[] {
  const text = readFileSync(join(SRC, module), 'utf8');
  return [...text.matchAll(/(?:from\s+|import\(\s*)'(\.[^']+)'/g)].map(
    (m) => `${module} → ${relative(SRC, resolve(SRC, dirname(module), m[1]!))}`,
  );
}

describe('the application layer', () => {
  const edges = modules.flatMap(edgesOf);

  it('only the commands import app/', () => {
    expect(edges).toContain('cli/run/run-action.ts → app/runtime.js'); // the edges are read
    const fromBelow = edges.filter((e) => / → app\//.test(e) && !/^(app|cli)\//.test(e));
    expect(fromBelow).toEqual([]);
  });

  it('app/ does not import cli/', () => {
    expect(edges.filter((e) => /^app\/.* → cli\//.test(e))).toEqual([]);
  });
});
