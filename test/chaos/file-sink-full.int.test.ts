/**
 * The file sink and the dead-letter file under a real file size limit: a child process with `ulimit -f` (SIGXFSZ
 * ignored, so the kernel's short write then EFBIG reach the code, as ENOSPC does on a full disk). When an append
 * fails, the test raises the limit (prlimit: space returns) and the child retries it, as the collector does. Every
 * line must then be whole and every point there once. Needs npm run build (the child runs dist/).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const DIST = resolve(import.meta.dirname, '../../dist');
const PRLIMIT = spawnSync('sh', ['-c', 'command -v prlimit']).stdout.toString().trim();

/** Writes `batches` appends through the file sink or the dead-letter file; on a failure, waits for "go" and retries. */
const CHILD = `
import { createInterface } from 'node:readline';
import { createSink } from '${DIST}/sink/index.js';
import { DeadLetterFile } from '${DIST}/sink/dead-letter.js';
const [target, path, batches] = process.argv.slice(2);
const stdin = createInterface({ input: process.stdin });
const go = () => new Promise((resolve) => stdin.once('line', resolve));
const fields = { v: { type: 'integer', description: 'v' }, s: { type: 'string', description: 's' } };
const schema = new Map([['m', { name: 'm', description: 'm', source: 'test', tags: {}, fields }]]);
const sink = createSink({ type: 'file', path, deadLetterPath: path + '.dead', schema, batchSize: 10 });
const letters = new DeadLetterFile(path);
// Lines of uneven length, so the limit falls inside a line.
const text = (v) => 'x'.repeat(50 + ((v * 37) % 300));
const point = (v) => ({ measurement: 'm', tags: {}, fields: { v, s: text(v) }, time: v * 1000 });
const ten = (i, make) => Array.from({ length: 10 }, (_, k) => make(i * 10 + k));
const append = (i) => target === 'sink'
  ? sink.write(ten(i, point))
  : letters.append({ sink: 'file', status: 0, reason: 'test', lines: ten(i, text) });
for (let i = 0; i < Number(batches); i++) {
  for (;;) {
    try { await append(i); break; } catch (err) {
      console.log(JSON.stringify({ failed: i, err: err.message }));
      await go();
    }
  }
}
await sink.close();
console.log(JSON.stringify({ done: Number(batches) }));
process.exit(0);
`;

interface Run {
  failures: Array<{ failed: number; err: string }>;
  code: number | null;
}

/**
 * Runs the child in `shell` (`"$0" "$@"` is the node command); after each failure, `makeRoom()` and a "go" to retry.
 */
async function runChild(
  target: 'sink' | 'letters',
  path: string,
  batches: number,
  shell: string,
  makeRoom: (pid: number) => void,
): Promise<Run> {
  const script = join(mkdtempSync(join(tmpdir(), 'file-limit-child-')), 'child.mjs');
  writeFileSync(script, CHILD);
  const child = spawn('sh', ['-c', shell, process.execPath, script, target, path, String(batches)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const failures: Run['failures'] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    const message = JSON.parse(line) as { failed?: number; err?: string; done?: number };
    if (message.failed === undefined) continue;
    failures.push({ failed: message.failed, err: message.err! });
    makeRoom(child.pid!);
    child.stdin!.write('go\n');
  }
  const code = await new Promise<number | null>((done) => child.once('close', done));
  return { failures, code };
}

/** Runs the child with a file size limit of a few KiB, lifted (prlimit) after its first failure. */
function underFileSizeLimit(target: 'sink' | 'letters', path: string, batches: number): Promise<Run> {
  const shell = `trap '' XFSZ; ulimit -S -f 16; exec "$0" "$@"`;
  return runChild(target, path, batches, shell, (pid) => {
    spawnSync(PRLIMIT, ['--pid', String(pid), '--fsize=unlimited:']); // space returns
  });
}

/** A 64 KiB tmpfs (root only), or undefined where it cannot be mounted. */
function smallTmpfs(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'file-full-tmpfs-'));
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0 ? dir : undefined;
}

describe.skipIf(!PRLIMIT)('appends under a file size limit (short write, then EFBIG)', () => {
  it('the file sink cuts a failed batch back: after the retry, every line whole, every point there once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'file-limit-')), 'out.lp');
    const { failures, code } = await underFileSizeLimit('sink', path, 12);
    expect(code).toBe(0);
    expect(failures.length).toBeGreaterThan(0); // the limit was met: the test tested something
    expect(failures[0]!.err).toMatch(/EFBIG/);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.filter((l) => !/^m v=\d+i,s="x+" \d+$/.test(l))).toEqual([]);
    const values = lines.map((l) => Number(/v=(\d+)i/.exec(l)![1]));
    expect(values).toEqual(Array.from({ length: 120 }, (_, v) => v));
  }, 60_000);

  it('the dead-letter file keeps letters whole: after the retry, every line JSON, every letter once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'file-limit-')), 'dead.jsonl');
    const { failures, code } = await underFileSizeLimit('letters', path, 12);
    expect(code).toBe(0);
    expect(failures.length).toBeGreaterThan(0);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const letters = lines.map((l) => {
      try {
        return JSON.parse(l) as { lines: string[] };
      } catch {
        return l.slice(0, 40); // a torn line, named in the failure
      }
    });
    expect(letters.filter((l) => typeof l === 'string')).toEqual([]);
    expect(letters).toHaveLength(12);
  }, 60_000);
});

const TMPFS = process.getuid?.() === 0 ? smallTmpfs() : undefined;
describe.skipIf(!TMPFS)('appends to a full disk (a 64 KiB tmpfs: short write, then ENOSPC)', () => {
  afterAll(() => {
    spawnSync('umount', [TMPFS!]);
  });

  it('the file sink cuts a failed batch back; after space is freed every line is whole, every point once', async () => {
    const filler = join(TMPFS!, 'filler');
    writeFileSync(filler, Buffer.alloc(44 * 1024)); // about 16 KiB left: a few batches
    const path = join(TMPFS!, 'out.lp');
    const { failures, code } = await runChild('sink', path, 16, 'exec "$0" "$@"', () =>
      rmSync(filler, { force: true }),
    );
    expect(code).toBe(0);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]!.err).toMatch(/ENOSPC/);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.filter((l) => !/^m v=\d+i,s="x+" \d+$/.test(l))).toEqual([]);
    expect(lines.map((l) => Number(/v=(\d+)i/.exec(l)![1]))).toEqual(Array.from({ length: 160 }, (_, v) => v));
  }, 60_000);
});
