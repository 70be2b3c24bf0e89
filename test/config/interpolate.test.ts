import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/loader.js';
import { problemsOf } from '../helpers/config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'interpolate-'));
let files = 0;

/** The configuration of `yaml` (after the lines every config needs) as the loader reads it, with `env` only. */
function load(yaml: string, env: Record<string, string> = {}) {
  const path = join(dir, `c${files++}.yaml`);
  const base = [
    'api: { baseUrl: http://127.0.0.1:1, token: secret-token-123 }',
    'accounts: [acme]',
    'sink: { type: file, path: "-" }',
  ];
  writeFileSync(path, [...base, yaml].join('\n'));
  return loadConfigFile(path, env);
}

const problems = (yaml: string, env: Record<string, string> = {}) => problemsOf(() => load(yaml, env));

describe('${NAME} in the config file', () => {
  it('is replaced by the environment variable', () => {
    const c = load('state: { dir: "${DATA}/state" }\ninstance: ${HOST_NAME}-1', {
      DATA: '/srv/cdn',
      HOST_NAME: 'edge',
    });
    expect(c.state.dir).toBe('/srv/cdn/state');
    expect(c.instance).toBe('edge-1');
    expect(c.output.deadLetterPath).toBe('/srv/cdn/state/dead-letters.jsonl');
  });

  it('an unset variable is an error naming it and the field, with every other problem', () => {
    const yaml =
      'state:\n  dir: ${MY_DIR}/state\nlog: { level: loud }\njobs: { statistic: { groupings: [total, "${G}"] } }';
    expect(problems(yaml)).toEqual([
      'state.dir: ${MY_DIR}: environment variable MY_DIR is not set',
      'jobs.statistic.groupings.1: ${G}: environment variable G is not set',
      expect.stringMatching(/^log\.level: /),
    ]);
  });

  it('a bad name or an unclosed ${ is an error, never taken literally', () => {
    expect(problems('instance: ${1X}')).toEqual([
      'instance: ${1X} is not a variable name: write ${NAME} (letters, digits, _), or $${ for a literal ${',
    ]);
    expect(problems('instance: a${X')).toEqual([
      'instance: unclosed ${: write ${NAME} (letters, digits, _), or $${ for a literal ${',
    ]);
  });

  it('reads the file as before otherwise: an alias of no anchor is a YAML error, not a crash', () => {
    expect(problems('instance: *nothing')).toEqual([
      expect.stringMatching(/^\(file\): .* is not valid YAML: Unresolved alias/),
    ]);
  });

  it('$${ writes a literal ${; a lone $ stays as it is', () => {
    expect(load('instance: "a$${B}c$d"').instance).toBe('a${B}c$d');
  });

  it('an unquoted value that is one reference takes the type of its text', () => {
    const c = load('http:\n  port: ${PORT}\noutput:\n  overwrites: ${OVERWRITES}', {
      PORT: '9464',
      OVERWRITES: 'false',
    });
    expect(c.http.port).toBe(9464);
    expect(c.output.overwrites).toBe(false);
    expect(load('instance: "${N}"', { N: '42' }).instance).toBe('42');
  });

  it('comments and keys are not read', () => {
    const c = load('# state: { dir: ${UNSET} }\nhttp:\n  jobMaxLag: { "metrics/${X}": 3h }');
    expect(c.http.jobMaxLag).toEqual({ 'metrics/${X}': 3 * 3_600_000 });
  });
});
