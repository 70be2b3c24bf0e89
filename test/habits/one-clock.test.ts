import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The system clock enters in one place, src/clock.ts: everything else is handed a Clock, so a manual, scaled or
 * virtual clock drives all of it (tests, demo, soak) and nothing reads real time behind the clock's back.
 */
describe('the system clock enters in one place', () => {
  it('no file under src/ but src/clock.ts calls Date.now()', () => {
    const files = sourceFiles(SRC).map((path) => relative(SRC, path));
    expect(files).toContain('clock.ts'); // the walk found the sources
    const callers = files.filter((file) => readFileSync(join(SRC, file), 'utf8').includes('Date.now()'));
    expect(callers).toEqual(['clock.ts']);
  });
});
