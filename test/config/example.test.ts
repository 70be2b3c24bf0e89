import { readFileSync } from 'node:fs';
import { isMap, isScalar, parseDocument, type Node } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from '../../src/config/loader.js';
import { configReference } from '../../src/config/reference.js';

const EXAMPLE = 'config/collector.example.yaml';

/** Every leaf of the example's mappings: its dotted path and the line its key is on. */
function leaves(text: string): Array<{ path: string; line: string }> {
  const lines = text.split('\n');
  const lineAt = (offset: number) => lines[text.slice(0, offset).split('\n').length - 1]!;
  const out: Array<{ path: string; line: string }> = [];
  const walk = (node: unknown, path: string[], line: string) => {
    if (!isMap(node) || node.items.length === 0) return void out.push({ path: path.join('.'), line });
    for (const pair of node.items) {
      const key = pair.key as Node;
      walk(pair.value, [...path, String(isScalar(key) ? key.value : key)], lineAt(key.range![0]));
    }
  };
  walk(parseDocument(text).contents, [], '');
  return out;
}

const valueAt = (value: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);

describe(EXAMPLE, () => {
  it('shows the schema defaults, except on the lines marked "e.g."', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const example = loadConfigFile(EXAMPLE, { CDN_TOKEN: 'x', INFLUX_TOKEN: 'y' });
    const minimal = {
      api: { baseUrl: 'http://x.example', token: 't' },
      accounts: ['a'],
      sink: { type: 'file', path: '-' },
    };
    const defaults = parseConfig(minimal, {});
    const defaulted = new Set(
      configReference()
        .flatMap((s) => s.fields)
        .filter((f) => f.default !== undefined)
        .map((f) => f.path),
    );
    // A field is shown with a default when it, or an object it belongs to (quotas.metrics), has one.
    const shown = leaves(text).filter(({ path }) =>
      path.split('.').some((_, i, keys) => defaulted.has(keys.slice(0, i + 1).join('.'))),
    );
    expect(shown.length).toBeGreaterThan(40);
    const wrong = shown
      .filter(
        ({ path, line }) =>
          !line.includes('e.g.') && JSON.stringify(valueAt(example, path)) !== JSON.stringify(valueAt(defaults, path)),
      )
      .map(
        ({ path }) =>
          `${path}: ${JSON.stringify(valueAt(example, path))}, default ${JSON.stringify(valueAt(defaults, path))}`,
      );
    expect(wrong, 'the example must show the default (or say "e.g." on the line of the key)').toEqual([]);
  });
});
