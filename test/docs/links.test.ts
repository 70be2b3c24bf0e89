import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Docs must stand on their own: a clone of this repository is all a reader has. */
const ROOT = resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Relative targets of `[text](target)` and `<img src=…>`, without their #anchor. */
function linkTargets(text: string): string[] {
  const targets = [
    ...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...text.matchAll(/src="([^"]+)"/g),
  ].map((m) => m[1]!);
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => decodeURIComponent(t.split('#')[0]!));
}

/** Paths written as code that climb out of the file's folder (`../shared/DESIGN.md`). */
function climbingPaths(text: string): string[] {
  return [...text.matchAll(/`((?:\.\.\/)+[^`\s]*)`/g)].map((m) => m[1]!);
}

const isInside = (path: string) => {
  const rel = relative(ROOT, path);
  return rel !== '' && !rel.startsWith('..');
};

const files = markdownFiles(ROOT);

describe('documentation links', () => {
  it('finds the docs (README.md, docs/*.md)', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/design.md', 'docs/spec-conformance.md']),
    );
  });

  it('every relative link in a *.md file resolves to a file inside the repository', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8'))
        .map((target) => ({ target, path: resolve(dirname(file), target) }))
        .filter(({ path }) => !isInside(path) || !existsSync(path))
        .map(({ target }) => `${relative(ROOT, file)}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('no doc names a path outside the repository, even as code (from its folder or from the root)', () => {
    const resolves = (path: string) => isInside(path) && existsSync(path);
    const outside = files.flatMap((file) =>
      climbingPaths(readFileSync(file, 'utf8'))
        .filter((target) => !resolves(resolve(dirname(file), target)) && !resolves(resolve(ROOT, target)))
        .map((target) => `${relative(ROOT, file)}: ${target}`),
    );
    expect(outside).toEqual([]);
  });
});
