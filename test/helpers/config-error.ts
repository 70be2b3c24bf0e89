import { expect } from 'vitest';
import { ConfigError } from '../../src/config/loader.js';

/** The field a config check names when it refuses (fails the test when it accepts). */
export function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  }
  throw new Error('expected a ConfigError');
}

/** Every problem a config check refuses with, as `field: message` (fails the test when it accepts). */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems.map((p) => `${p.field}: ${p.message}`);
  }
  throw new Error('expected a ConfigError');
}
