/**
 * The CLI runs from dist/bundle/ (scripts/bundle-cli.js): a loaded file there stands for the modules bundled into it.
 * esbuild's metafile (dist/bundle/metafile.json) lists them; this expands loaded URLs into module names as
 * test/helpers/loaded-modules.ts names them (`package`, `dist/…`), so start-up checks still see every module.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { moduleName } from '../helpers/loaded-modules.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** A bundle input (a path relative to the repository, e.g. `dist/cli/run.js` or `../x/node_modules/commander/…`). */
function inputName(path: string): string {
  const dep = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return dep ? dep[1]! : path;
}

/** The names of the modules behind loaded URLs: bundle files expanded into their inputs, others as they are. */
export function expandBundled(urls: string[]): string[] {
  const meta = JSON.parse(readFileSync(resolve(ROOT, 'dist/bundle/metafile.json'), 'utf8')) as Metafile;
  return [
    ...new Set(
      urls.flatMap((url) => {
        const name = moduleName(url);
        const output = name.startsWith('dist/bundle/') ? meta.outputs[name] : undefined;
        return output ? Object.keys(output.inputs).map(inputName) : [name];
      }),
    ),
  ];
}
