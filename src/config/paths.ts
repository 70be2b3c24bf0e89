import { statSync } from 'node:fs';
import { ConfigError } from './loader.js';

/**
 * `state.dir` must be a directory or not exist yet (it is created then). A file there, or a file on the way to it,
 * would pass the schema and fail at the first checkpoint write; checked with the config so `run --check` reports it.
 */
export function checkStateDir(dir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new ConfigError('state.dir', `${dir}: a part of the path is a file, not a directory`);
    throw new ConfigError('state.dir', `${dir}: cannot be read (${code ?? String(err)})`);
  }
  if (!isDirectory) throw new ConfigError('state.dir', `${dir} exists and is not a directory`);
}
