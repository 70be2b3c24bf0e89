import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (no process, no server, no socket: seconds, the inner loop — `npm run test:unit`) and
 * `integration` (the simulator, real InfluxDB and VictoriaMetrics, the CLI as a child process). A test file is
 * integration when it reaches for any of those; everything else is unit. `npm test` runs both.
 */
const INTEGRATION = new RegExp(
  [
    /startSimulator|useSimulator|runCli|spawnEntry|node:child_process/,
    /helpers\/(servers|cli|docker|loaded-modules|sim|loopback)/,
    // A daemon or runtimeFor's runtime is in-process by itself: it reaches a socket only through a server matched here.
    /createServer|createRuntime|testcontainers|\.listen\(|node:net|HttpClient\(/,
  ]
    .map((r) => r.source)
    .join('|'),
);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = testFiles('test');
const integration = files.filter((file) => INTEGRATION.test(readFileSync(file, 'utf8')));
const unit = files.filter((file) => !integration.includes(file));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on fixed temp dirs/ports; files still run in parallel workers.
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker (cores - 1), and most integration tests wait on processes,
    // servers and timers rather than compute: three files at a time keep both cores busy.
    maxWorkers: 3,
    reporters: ['default'],
    projects: [
      // Unit files start no process and no server: worker threads start and load them faster than forks.
      { extends: true, test: { name: 'unit', include: unit, pool: 'threads' } },
      { extends: true, test: { name: 'integration', include: integration } },
    ],
  },
});
