import { renameSync, writeFileSync } from 'node:fs';
import { open, readdir, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Temp files are `<target>.tmp-<pid>-<n>`: unique per writer, recognisable as leftovers of a crash. */
const TEMP_SUFFIX = /\.tmp-\d+-\d+$/;
let tempCounter = 0;

/**
 * Replaces `path` with `data` so that after a crash at any moment the file holds either the old or the new content in
 * full: write a temp file, fsync it, rename it over the target, fsync the directory so the rename itself is durable.
 */
export async function writeFileDurably(path: string, data: string): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${++tempCounter}`;
  try {
    const file = await open(temp, 'w', 0o644);
    try {
      await file.writeFile(data, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dirname(path));
}

/**
 * Replaces `path` with `data` atomically but without fsync: readers see the old or the new file, never a torn one, and
 * a killed process loses nothing the kernel has. For files a machine crash may cost (reports, hand-over messages).
 */
export async function replaceFile(path: string, data: string): Promise<void> {
  await writeFile(`${path}.tmp`, data);
  await rename(`${path}.tmp`, path);
}

/**
 * replaceFile, synchronously: for a record that must be in the kernel before the next statement runs. Its own temp
 * name, so it cannot write into the temp file of an asynchronous replaceFile under way.
 */
export function replaceFileSync(path: string, data: string): void {
  writeFileSync(`${path}.now.tmp`, data);
  renameSync(`${path}.now.tmp`, path);
}

/** fsync of a directory makes a rename or a new entry durable (Linux, macOS); platforms that refuse it are skipped. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    await handle?.close();
  }
}

/** Deletes temp files a killed writer left behind; their target still holds the last complete version. */
export async function removeStrayTemps(dir: string): Promise<string[]> {
  const stray = (await readdir(dir)).filter((name) => TEMP_SUFFIX.test(name));
  await Promise.all(stray.map((name) => rm(join(dir, name), { force: true })));
  return stray.map((name) => basename(name));
}
