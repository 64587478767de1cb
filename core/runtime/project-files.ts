import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The one rule for finding files on disk that are not code: the console's modules, the
// vendor files of node_modules, Swagger UI, fonts and schemas. Code runs from two places
// (the sources through tsx, and dist/ for `npm start`), but these files exist once, in the
// checkout, so every route that serves a file resolves it here rather than relative to
// its own module (which, compiled, sits one folder deeper, in dist/).

const HERE = dirname(fileURLToPath(import.meta.url));
/** Whether this module is the compiled copy (dist/core/runtime/project-files.js). */
const COMPILED = import.meta.url.endsWith('.js');

/** The checkout's root folder: the same from the sources and from dist/. */
export const PROJECT_ROOT = resolve(HERE, COMPILED ? '../../..' : '../..');

/** The absolute path of a file or folder of the checkout, by its path from the root (`console`, `resources/fonts`). */
export function projectPath(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}

const require = createRequire(join(PROJECT_ROOT, 'package.json'));

/** An installed package's folder, found from its entry point (not every package exports its package.json). */
export function packageDir(name: string): string {
  let dir = dirname(require.resolve(name));
  const isPackage = (d: string) => existsSync(join(d, 'package.json')) && (JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { name?: string }).name === name;
  while (!isPackage(dir)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package ${name} not found`);
    dir = parent;
  }
  return dir;
}
