import { describe, expect, it } from 'vitest';
import { fieldsOfVariables } from '../../src/config/env.js';
import { configReference } from '../../src/config/reference.js';

describe('the environment table of --help', () => {
  it('is the config reference read by variable (same variables, fields and order), without loading the schema', () => {
    const fromReference = new Map<string, string[]>();
    for (const f of configReference().flatMap((s) => s.fields)) {
      if (f.env && !fromReference.get(f.env)?.includes(f.path))
        fromReference.set(f.env, [...(fromReference.get(f.env) ?? []), f.path]);
    }
    expect([...fieldsOfVariables()]).toEqual([...fromReference]);
  });
});
