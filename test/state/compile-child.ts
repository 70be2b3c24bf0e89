import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Transpiles `entry` and every module it reaches through relative imports into `outDir`, keeping the layout, so a
 * child process can run it with plain `node` (the tests must not depend on a prior `npm run build`).
 * Returns the path of the compiled entry.
 */
export async function compileForNode(entry: string, outDir: string): Promise<string> {
  const seen = new Set<string>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    }).outputText;
    const target = join(outDir, relative(ROOT, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, output);
    for (const match of source.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(resolve(dirname(file), `${match[1]}.ts`));
    }
  }
  await writeFile(join(outDir, 'package.json'), '{"type":"module"}\n');
  return join(outDir, relative(ROOT, resolve(entry))).replace(/\.ts$/, '.js');
}
