import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The layout's import rules (docs/design.md): the simulator reads the spec's vocabulary (src/spec/), never the clients
 * it is the oracle for; config/ does not reach up into cli/; sources do not read the config that composes them; and
 * no module depends on itself through others. Type-only imports count: they tie modules together all the same.
 */

const SRC = resolve('src');

/** Every module under src/ with the modules it imports (paths relative to src/, without extension). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gs)].map((m) => m[1]!);
    const module = file.replace(/\.ts$/, '');
    graph.set(
      module,
      specifiers.map((s) => relative(SRC, resolve(SRC, dirname(file), s)).replace(/\.js$/, '')),
    );
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan), each sorted. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph();
const importsOf = (folder: string) =>
  [...graph]
    .filter(([module]) => module.startsWith(`${folder}/`))
    .flatMap(([module, deps]) => deps.map((d) => `${module} → ${d}`));

describe('import rules of the layout', () => {
  it('has no import cycle', () => {
    expect(graph.get('sim/simulator')).toContain('sim/routes/index'); // the graph is read, not empty
    expect(cycles(graph)).toEqual([]);
  });

  it('the simulator imports no client code, only the spec vocabulary', () => {
    expect(importsOf('sim').filter((edge) => / → sources\//.test(edge))).toEqual([]);
  });

  it('config/ does not import cli/', () => {
    expect(importsOf('config').filter((edge) => / → cli\//.test(edge))).toEqual([]);
  });

  it('sources read their own settings, not the config that composes them', () => {
    expect(importsOf('sources').filter((edge) => / → config\/(schema|rules|loader)$/.test(edge))).toEqual([]);
  });
});
