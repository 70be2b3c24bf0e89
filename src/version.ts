import { readFileSync } from 'node:fs';

/** The version this build runs: package.json's (beside dist/ or src/); `unknown` when it cannot be read. */
export const VERSION = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
