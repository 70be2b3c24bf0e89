/**
 * Runtime `dependencies` hold exactly what runtime code (src/) loads: the image installs them alone (`npm ci
 * --omit=dev`), so a package src/ needs but only devDependencies name breaks the image, and one nothing loads is dead
 * weight. Type-only imports are erased by the compiler and do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Packages a source text loads at run time: value imports, dynamic imports, pino transport targets (by name). */
function runtimePackages(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^'.][^']*)'/gm,
    /\bimport\(\s*'([^'.][^']*)'\s*\)/g,
    // CommonJS loads through createRequire: `createRequire(import.meta.url)('pkg')` or a `load('pkg/lib/x.js')` of it.
    /\bcreateRequire\([^)]*\)\(\s*'([^'.][^']*)'\s*\)/g,
    /\b(?:load|require)\(\s*'([^'.][^']*)'\s*\)/g,
    /\btarget:\s*'([^'.][^']*)'/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(packageOf(m[1]!));
  const builtin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);
  return found.filter((name) => !builtin(name));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('package.json dependencies', () => {
  it('are exactly the packages src/ loads at run time', () => {
    const used = new Set(sourceFiles(join(ROOT, 'src')).flatMap((f) => runtimePackages(readFileSync(f, 'utf8'))));
    expect([...used].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('are not also devDependencies', () => {
    expect(Object.keys(pkg.dependencies).filter((name) => name in pkg.devDependencies)).toEqual([]);
  });

  it('the scan sees value imports, dynamic imports and transport targets, not types or relative paths', () => {
    const text = [
      "import { z } from 'zod';",
      "import type { Logger } from 'pino';",
      "import pLimit from 'p-limit';",
      "import '@scope/side-effect/register';",
      "export { x } from './local.js';",
      "import { readFile } from 'node:fs/promises';",
      "import { gzip } from 'zlib';",
      "const m = await import('luxon');",
      "pino({ transport: { target: 'pino-pretty' } });",
    ].join('\n');
    expect(runtimePackages(text).sort()).toEqual(['@scope/side-effect', 'luxon', 'p-limit', 'pino-pretty', 'zod']);
  });
});
