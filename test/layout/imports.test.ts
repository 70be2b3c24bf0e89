import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// TypeScript is one 9 MB CommonJS file: required, it loads in a third of the time an ESM import takes to scan it for
// named exports.
const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');

/*
 * The layout's import rules (docs/design.md): the simulator reads the spec's vocabulary (src/spec/), never the clients
 * it is the oracle for; config/ does not reach up into cli/; sources do not read the config that composes them; no
 * module depends on itself through others; no two folders import each other and no folders import each other in a
 * circle. Every import counts: type-only ones and `import()` (loaded later, still a dependency) tie modules together
 * all the same.
 */

const SRC = resolve('src');

/**
 * The relative specifiers `text` imports: static, re-exported, side-effect only, type-only and `import()` (TypeScript's
 * own pre-processor reads them, so comments and strings never count).
 */
function specifiersOf(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Every module under src/ with the modules it imports (paths relative to src/, without extension). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const module = file.replace(/\.ts$/, '');
    const targets = specifiersOf(readFileSync(join(SRC, file), 'utf8')).map((s) =>
      relative(SRC, resolve(SRC, dirname(file), s)).replace(/\.js$/, ''),
    );
    graph.set(module, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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

/** The folder of a module: its directory under src/, `.` for the files at the root. */
const folderOf = (module: string): string => dirname(module);

/** Each folder with the folders its modules import, and one module edge that shows each folder edge. */
function folderGraph(graph: ReadonlyMap<string, readonly string[]>) {
  const folders = new Map<string, string[]>();
  const witness = new Map<string, string>();
  for (const [module, deps] of graph) {
    const from = folderOf(module);
    if (!folders.has(from)) folders.set(from, []);
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to === from || !graph.has(dep)) continue;
      if (!folders.get(from)!.includes(to)) folders.get(from)!.push(to);
      if (!witness.has(`${from} → ${to}`)) witness.set(`${from} → ${to}`, `${module} → ${dep}`);
    }
  }
  return { folders, witness };
}

/** The shortest circle through each node of every strongly connected component, as `a → b → a`, each once. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found = new Set<string>();
  for (const component of cycles(graph)) {
    const inside = new Set(component);
    for (const start of component) {
      const via = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0 && !via.has(start)) {
        const node = queue.shift()!;
        for (const next of graph.get(node) ?? []) {
          if (!inside.has(next) || via.has(next)) continue;
          via.set(next, node);
          queue.push(next);
        }
      }
      const circle = [start];
      for (let node = via.get(start)!; node !== start; node = via.get(node)!) circle.unshift(node);
      const first = circle.indexOf([...circle].sort()[0]!);
      const turned = [...circle.slice(first), ...circle.slice(0, first)];
      found.add([...turned, turned[0]].join(' → '));
    }
  }
  return [...found].sort();
}

/** Pairs of folders that import each other, each with one import of either way. */
function mutualFolders(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const { folders, witness } = folderGraph(graph);
  const pairs: string[] = [];
  for (const [a, targets] of folders)
    for (const b of targets)
      if (a < b && folders.get(b)?.includes(a))
        pairs.push(`${a} ↔ ${b} (${witness.get(`${a} → ${b}`)}; ${witness.get(`${b} → ${a}`)})`);
  return pairs.sort();
}

const graph = importGraph();
const importsOf = (folder: string) =>
  [...graph]
    .filter(([module]) => module.startsWith(`${folder}/`))
    .flatMap(([module, deps]) => deps.map((d) => `${module} → ${d}`));

describe('import rules of the layout', () => {
  it('reads every kind of import, dynamic import() included', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c/c.js';",
      "export * from './d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      "const g = () => import(\n  '../g/g.js'\n);",
      "type H = typeof import('./h.js');",
      "import { i } from 'node:fs';",
      "// import { j } from './j.js';",
      'const k = \'import("./k.js")\';',
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(
      ['./a.js', '../b.js', './c/c.js', './d.js', './e.js', './f.js', '../g/g.js', './h.js'].sort(),
    );
  });

  it('has no import cycle', () => {
    expect(graph.get('sim/simulator')).toContain('sim/routes/index'); // the graph is read, not empty
    expect(cycles(graph)).toEqual([]);
  });

  it('no two folders import each other', () => {
    expect(folderGraph(graph).folders.get('sim')).toContain('sim/routes'); // the folders are read, not empty
    expect(mutualFolders(graph)).toEqual([]);
  });

  it('no folders import each other in a circle', () => {
    expect(circles(folderGraph(graph).folders)).toEqual([]);
  });

  it('the files at the root of src/ import no folder: they are the vocabulary every folder may use', () => {
    const rootImports = [...graph]
      .filter(([module]) => folderOf(module) === '.')
      .flatMap(([module, deps]) => deps.map((d) => `${module} → ${d}`));
    expect(rootImports).toContain('errors → failure'); // the root's imports are read, not empty
    expect(rootImports.filter((edge) => edge.split(' → ')[1]!.includes('/'))).toEqual([]);
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
