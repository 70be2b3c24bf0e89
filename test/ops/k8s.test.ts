import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/run/run.js';
import { applyShard } from '../../src/cli/common/apply-shard.js';
import { parseShard } from '../../src/cli/common/shard.js';
import { parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import type { CollectorConfig } from '../../src/config/schema.js';

/* The Kubernetes example in deploy/k8s/: the references between its objects, and its config through the real loader. */

const DIR = join(import.meta.dirname, '..', '..', 'deploy', 'k8s');
const ENV = { CDN_TOKEN: 'token-from-the-secret', INFLUX_TOKEN: 'influx-token-from-the-secret' };

interface K8sObject {
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped JSON; the assertions check the shape
type Any = any;

async function loadManifests(): Promise<K8sObject[]> {
  const objects: K8sObject[] = [];
  for (const file of (await readdir(DIR)).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(await readFile(join(DIR, file), 'utf8'))) {
      expect(doc.errors, file).toEqual([]);
      const value = doc.toJS() as K8sObject;
      objects.push(...(value.kind === 'List' ? ((value as Any).items as K8sObject[]) : [value]));
    }
  }
  return objects;
}

describe('deploy/k8s', () => {
  let objects: K8sObject[];
  let sets: Any[];
  let configMap: Any;
  let config: CollectorConfig;
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as Any;

  beforeAll(async () => {
    objects = await loadManifests();
    sets = objects.filter((o) => o.kind === 'StatefulSet');
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap') as Any[];
    expect(configMaps).toHaveLength(1);
    configMap = configMaps[0];
    const { parse } = await import('yaml');
    config = parseConfig(parse(configMap.data['collector.yaml'] as string), ENV);
    checkConfig(config);
  });

  it('has one single-pod StatefulSet per shard, together covering --shard 0/n … n−1/n', () => {
    expect(sets.length).toBeGreaterThanOrEqual(2);
    const shards = sets.map((s) => {
      expect(s.spec.replicas, s.metadata.name).toBe(1);
      const args = s.spec.template.spec.containers[0].args as string[];
      return parseShard(args[args.indexOf('--shard') + 1]!);
    });
    expect(shards.map((s) => s.count)).toEqual(sets.map(() => sets.length));
    expect(shards.map((s) => s.index).sort()).toEqual(sets.map((_, i) => i));
    // Every shard of the example gets accounts (an empty shard refuses to start).
    for (const shard of shards) expect(applyShard(config, shard).accounts.length).toBeGreaterThan(0);
  });

  it('gives each shard its own token Secret, and every secretKeyRef names a Secret that has the key', () => {
    const tokenSecrets = sets.map((s) => {
      const env = s.spec.template.spec.containers[0].env as Any[];
      for (const e of env.filter((x) => x.valueFrom?.secretKeyRef)) {
        const ref = e.valueFrom.secretKeyRef;
        const secret = named('Secret', ref.name);
        expect(secret, `Secret ${ref.name}`).toBeDefined();
        expect({ ...secret.stringData, ...secret.data }, `${ref.name}.${ref.key}`).toHaveProperty(ref.key);
      }
      return env.find((e) => e.name === 'CDN_TOKEN')?.valueFrom?.secretKeyRef?.name as string;
    });
    expect(tokenSecrets.every(Boolean)).toBe(true);
    expect(new Set(tokenSecrets).size).toBe(sets.length);
  });

  it('mounts the ConfigMap where --config points and the state volume at state.dir (dead letters on it too)', () => {
    for (const s of sets) {
      const pod = s.spec.template.spec;
      const container = pod.containers[0];
      const args = container.args as string[];
      expect(args[0]).toBe('run');
      const configPath = args[args.indexOf('--config') + 1]!;
      const mountOf = (name: string) => (container.volumeMounts as Any[]).find((m) => m.name === name);
      const configVolume = (pod.volumes as Any[]).find((v) => v.configMap?.name === configMap.metadata.name);
      expect(configVolume, 'a volume from the ConfigMap').toBeDefined();
      expect(mountOf(configVolume.name).mountPath).toBe(posix.dirname(configPath));
      expect(configMap.data).toHaveProperty(posix.basename(configPath));

      const claim = (s.spec.volumeClaimTemplates as Any[])[0];
      expect(mountOf(claim.metadata.name).mountPath).toBe(config.state.dir);
      expect(dirname(config.output.deadLetterPath)).toBe(config.state.dir);
      // The image runs as uid 1000; fsGroup makes the volume writable for it.
      expect(pod.securityContext.fsGroup).toBe(1000);
    }
  });

  it("runs the image's ENTRYPOINT (no command of its own), as the manifests' comments say it is", async () => {
    const dockerfile = await readFile(join(DIR, '..', '..', 'Dockerfile'), 'utf8');
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    for (const s of sets) {
      for (const container of s.spec.template.spec.containers as Any[]) {
        if (container.command !== undefined) expect(container.command, s.metadata.name).toEqual(entrypoint);
        expect(container.args[0], s.metadata.name).toBe('run');
      }
    }
    for (const file of (await readdir(DIR)).filter((f) => f.endsWith('.yaml'))) {
      const text = await readFile(join(DIR, file), 'utf8');
      for (const [, said] of text.matchAll(/ENTRYPOINT is `([^`]+)`/g)) expect(said, file).toBe(entrypoint.join(' '));
    }
  });

  it('probes /healthz on the port the config listens on, on every interface', () => {
    expect(config.http.port).toBeDefined();
    expect(config.http.host).toBe('0.0.0.0');
    for (const s of sets) {
      const container = s.spec.template.spec.containers[0];
      const port = (container.ports as Any[]).find((p) => p.name === container.readinessProbe.httpGet.port);
      expect(port.containerPort).toBe(config.http.port);
      for (const probe of [container.readinessProbe, container.livenessProbe])
        expect(probe.httpGet.path).toBe('/healthz');
      expect(s.spec.serviceName).toBe(named('Service', s.spec.serviceName).metadata.name);
    }
  });

  describe('the container arguments through the real run command', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'k8s-'));
      for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
    });
    afterAll(async () => {
      vi.unstubAllEnvs();
      await rm(dir, { recursive: true, force: true });
    });

    it('pass run --check with the ConfigMap file', async () => {
      const file = join(dir, 'collector.yaml');
      await writeFile(file, configMap.data['collector.yaml'] as string);
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        for (const s of sets) {
          const args = [...(s.spec.template.spec.containers[0].args as string[])];
          args[args.indexOf('--config') + 1] = file;
          await runCommand().parseAsync([...args.slice(1), '--check'], { from: 'user' });
        }
        const printed = out.mock.calls.map((c) => String(c[0])).join('');
        expect(printed.match(/: valid \(shard \d+\/\d+: [^)]+\)\n/g)).toHaveLength(sets.length);
      } finally {
        out.mockRestore();
      }
    });
  });
});
