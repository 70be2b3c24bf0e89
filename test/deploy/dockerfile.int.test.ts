import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadDeployConfig } from '../helpers/deploy-config.js';

/** One Dockerfile instruction: keyword upper-cased, arguments with line continuations joined. */
interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const logical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  return logical
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s*(.*)$/.exec(l)!;
      return { op: m[1]!.toUpperCase(), args: m[2]!.trim() };
    });
}

/** Instructions per build stage (everything after each FROM); ARGs before the first FROM are the global ones. */
function stages(all: Instruction[]): Instruction[][] {
  const out: Instruction[][] = [];
  for (const i of all) {
    if (i.op === 'FROM') out.push([i]);
    else out[out.length - 1]?.push(i);
  }
  return out;
}

const DOCKERFILE = parseDockerfile(readFileSync('Dockerfile', 'utf8'));
const STAGES = stages(DOCKERFILE);
const RUNTIME = STAGES[STAGES.length - 1]!;
const DOCKER_CONFIG = loadDeployConfig('config/collector.docker.yaml');
const of = (op: string) => RUNTIME.filter((i) => i.op === op);

describe('Dockerfile', () => {
  it('is multi-stage: a build stage with dev dependencies, a slim Node 20 runtime with production ones only', () => {
    expect(STAGES.length).toBeGreaterThanOrEqual(2);
    const globalArgs = Object.fromEntries(
      DOCKERFILE.slice(
        0,
        DOCKERFILE.findIndex((i) => i.op === 'FROM'),
      )
        .filter((i) => i.op === 'ARG')
        .map((i) => i.args.split('=') as [string, string]),
    );
    const base = RUNTIME[0]!.args
      .split(/\s+/)[0]!
      .replace(/^\$\{(\w+)\}$/, (_, name: string) => globalArgs[name] ?? name);
    expect(base).toMatch(/^node:20[.\w-]*-slim$/);
    const buildRuns = STAGES[0]!.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(buildRuns.some((r) => /npm run build/.test(r))).toBe(true);
    const runtimeInstalls = of('RUN')
      .map((i) => i.args)
      .filter((r) => /npm (ci|install)/.test(r));
    expect(runtimeInstalls.length).toBeGreaterThan(0);
    // `prepare` runs tsc, which the runtime stage has not installed.
    for (const r of runtimeInstalls) {
      expect(r).toMatch(/--omit=dev/);
      expect(r).toMatch(/--ignore-scripts/);
    }
    expect(of('COPY').some((i) => /--from=\w+\s+\S*dist\b/.test(i.args))).toBe(true);
  });

  it("keeps glibc's malloc to two arenas in the runtime stage (the daemon's steady RSS)", () => {
    const env = of('ENV').flatMap((i) => i.args.split(/\s+/));
    expect(env).toContain('MALLOC_ARENA_MAX=2');
  });

  it('runs as a non-root user', () => {
    const user = of('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
  });

  it('keeps state on a VOLUME at the state directory of the docker config', () => {
    const volumes = of('VOLUME').flatMap((i) =>
      i.args.startsWith('[') ? (JSON.parse(i.args) as string[]) : i.args.split(/\s+/),
    );
    expect(volumes).toContain(DOCKER_CONFIG.state.dir);
    expect(DOCKER_CONFIG.output.deadLetterPath.startsWith(`${DOCKER_CONFIG.state.dir}/`)).toBe(true);
  });

  it('health-checks /healthz on the http.port of both container configs', () => {
    const check = of('HEALTHCHECK').at(-1)?.args ?? '';
    const port = /127\.0\.0\.1:(\d+)\/healthz/.exec(check)?.[1];
    expect(port).toBeDefined();
    expect(Number(port)).toBe(DOCKER_CONFIG.http.port);
    expect(Number(port)).toBe(loadDeployConfig('config/collector.sim.yaml').http.port);
    // The default listener is loopback only: container configs must open it to the pod/compose network explicitly.
    expect(DOCKER_CONFIG.http.host).toBe('0.0.0.0');
    expect(loadDeployConfig('config/collector.sim.yaml').http.host).toBe('0.0.0.0');
    expect(of('EXPOSE').map((i) => i.args)).toContain(port);
  });

  it('starts the collector with the config path that compose mounts', () => {
    expect(JSON.parse(of('ENTRYPOINT').at(-1)!.args)).toEqual(['/app/bin/cdn-collector.js']);
    const cmd = JSON.parse(of('CMD').at(-1)!.args) as string[];
    expect(cmd.slice(0, 2)).toEqual(['run', '--config']);
    const compose = parseYaml(readFileSync('docker-compose.yml', 'utf8')) as {
      services: { collector: { volumes: string[] } };
    };
    expect(compose.services.collector.volumes.map((v) => v.split(':')[1])).toContain(cmd[2]);
  });

  it('the entry script runs node with the memory flags of its shebang, and this node accepts them', () => {
    const shebang = readFileSync('bin/cdn-collector.js', 'utf8').split('\n')[0]!;
    const flags = /^#!\/usr\/bin\/env -S node((?: --[\w-]+(?:=\d+)?)+)$/.exec(shebang)?.[1]?.trim().split(' ');
    expect(flags).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^--max-semi-space-size=/),
        expect.stringMatching(/^--heap-growing-percent=/),
      ]),
    );
    expect(statSync('bin/cdn-collector.js').mode & 0o111).not.toBe(0);
    // node exits 9 on an unknown flag; a V8 flag it does not know would only warn, so check that V8 lists each one.
    expect(execFileSync(process.execPath, [...flags!, '-e', 'process.stdout.write("ok")']).toString()).toBe('ok');
    const v8Options = execFileSync(process.execPath, ['--v8-options']).toString();
    for (const flag of flags!) expect(v8Options).toContain(flag.split('=')[0]!.replace(/^--no-/, '--'));
  });

  it('keeps secrets, local state and build output out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.env', 'node_modules', 'dist', 'state', '.git']));
  });

  it('the parser joins continuations and skips comments (so the checks above read what Docker reads)', () => {
    expect(parseDockerfile('# c\nFROM a AS b\nRUN x \\\n  && y\n  # note\nUSER 1000')).toEqual([
      { op: 'FROM', args: 'a AS b' },
      { op: 'RUN', args: 'x    && y' },
      { op: 'USER', args: '1000' },
    ]);
  });
});
