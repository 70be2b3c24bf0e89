import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * A test file is an integration test by its name (`*.int.test.ts`, vitest.config.ts), not by what it contains. This
 * keeps the name honest: a file named as a unit test reaches for no server, no socket and no child process, so
 * `npm run test:unit` stays the loop of seconds it is meant to be.
 */
const REACHES_OUT = new RegExp(
  [
    /startSimulator|useSimulator|runCli|spawnEntry|node:child_process/,
    /helpers\/(servers|cli|docker|loaded-modules|sim|loopback)/,
    /createServer|createRuntime|testcontainers|\.listen\(|node:net|HttpClient\(/,
  ]
    .map((r) => r.source)
    .join('|'),
);
/**
 * Test files share their worker's module cache and globals (vitest.config.ts): global state a file changes, it puts
 * back. Each pair is a change and the call that undoes it; a change with no undo at all is refused.
 */
const GLOBAL_CHANGES: [change: RegExp, undo: RegExp | undefined][] = [
  [/vi\.useFakeTimers\(/, /vi\.useRealTimers\(/],
  [/vi\.stubEnv\(/, /vi\.unstubAllEnvs\(/],
  [/vi\.stubGlobal\(/, /vi\.unstubAllGlobals\(/],
  [/setGlobalDispatcher\(/, undefined],
  [/process\.chdir\(/, undefined],
  [/process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/, undefined],
  [/vi\.mock\(/, undefined],
];
const THIS_FILE = join('test', 'layout', 'test-marks.test.ts');

describe('unit and integration test files, by name', () => {
  const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join('test', file));
  const integration = files.filter((file) => file.endsWith('.int.test.ts'));
  const unit = files.filter((file) => !file.endsWith('.int.test.ts') && file !== THIS_FILE);

  it('a file named as a unit test starts no server, socket or process', () => {
    expect(unit.length).toBeGreaterThan(100);
    expect(unit.filter((file) => REACHES_OUT.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('a test file puts back the global state it changes', () => {
    const leaks = files
      .filter((file) => file !== THIS_FILE)
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return GLOBAL_CHANGES.filter(([change, undo]) => change.test(text) && !undo?.test(text)).map(
          ([change]) => `${file}: ${change.source}`,
        );
      });
    expect(leaks).toEqual([]);
  });

  it('integration files are marked by name and reach out to something', () => {
    expect(integration.length).toBeGreaterThan(50);
    const idle = integration.filter((file) => !REACHES_OUT.test(readFileSync(file, 'utf8')));
    expect(idle).toEqual([]);
  });
});
