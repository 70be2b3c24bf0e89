import { afterEach, describe, expect, it } from 'vitest';
import { redactWritesOnFirstUse } from '../../src/cli/redacted-output.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';

/** A stand-in for `process`: stdio streams created by a getter on first read, as node does. */
function fakeProcess(): {
  owner: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream };
  created: string[];
  written: string[];
} {
  const created: string[] = [];
  const written: string[] = [];
  const owner = {} as { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream };
  for (const name of ['stdout', 'stderr'] as const) {
    Object.defineProperty(owner, name, {
      configurable: true,
      enumerable: true,
      get: () => {
        created.push(name);
        return { write: (chunk: string) => (written.push(`${name}:${chunk}`), true) } as unknown as NodeJS.WriteStream;
      },
    });
  }
  return { owner, created, written };
}

describe('redactWritesOnFirstUse', () => {
  afterEach(() => clearSecrets());

  it('creates the stream only when it is read, then redacts every write through it, one stream', () => {
    const { owner, created, written } = fakeProcess();
    redactWritesOnFirstUse(owner, 'stdout');
    redactWritesOnFirstUse(owner, 'stderr');
    expect(created).toEqual([]);
    registerSecret('s3cr3t-token-value');
    owner.stderr.write('token s3cr3t-token-value refused\n');
    expect(owner.stderr).toBe(owner.stderr);
    owner.stderr.write(Buffer.from('again s3cr3t-token-value'));
    expect(created).toEqual(['stderr']);
    expect(written.join('')).not.toContain('s3cr3t-token-value');
    expect(written[0]).toMatch(/^stderr:token .+ refused\n$/);
  });

  it('a stream that is a plain value (no getter) is redacted at once', () => {
    const written: string[] = [];
    const owner = { stdout: { write: (c: string) => (written.push(c), true) }, stderr: {} } as unknown as {
      stdout: NodeJS.WriteStream;
      stderr: NodeJS.WriteStream;
    };
    redactWritesOnFirstUse(owner, 'stdout');
    registerSecret('another-secret-value');
    owner.stdout.write('another-secret-value');
    expect(written.join('')).not.toContain('another-secret-value');
  });
});
