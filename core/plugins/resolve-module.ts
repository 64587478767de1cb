import { createRequire } from 'node:module';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Exports = string | { import?: Exports; default?: Exports; node?: Exports; '.'?: Exports } | undefined;

function entryOf(exportsField: Exports): string | undefined {
  if (typeof exportsField === 'string' || exportsField === undefined) return exportsField;
  return entryOf(exportsField['.'] ?? exportsField.import ?? exportsField.node ?? exportsField.default);
}

/** The entry file of a package folder, honouring `exports` (ESM conditions) then `main`. */
function packageEntry(dir: string): string {
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) return join(dir, 'index.js');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { exports?: Exports; main?: string };
  return join(dir, entryOf(pkg.exports) ?? pkg.main ?? 'index.js');
}

/**
 * Resolves an admin-configured plugin module to a file URL: a path (absolute, or
 * relative to `baseDir`; a folder means its package entry) or an npm package name
 * installed under `baseDir`.
 */
export function resolvePluginModule(specifier: string, baseDir: string): string {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const path = resolve(baseDir, specifier);
    if (!existsSync(path)) throw new Error(`no such file or folder: ${path}`);
    return pathToFileURL(statSync(path).isDirectory() ? packageEntry(path) : path).href;
  }
  const dir = join(resolve(baseDir), 'node_modules', specifier);
  if (existsSync(dir)) return pathToFileURL(packageEntry(dir)).href;
  // Not installed locally: let Node's resolution walk up the folders.
  return pathToFileURL(createRequire(join(resolve(baseDir), 'package.json')).resolve(specifier)).href;
}
