import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { packageDir, projectPath } from '../../core/runtime/project-files.ts';

/** The console's own source folder (top-level `console/`), served file by file. */
export const CONSOLE_DIR = projectPath('console');

export interface VendorFile {
  /** Absolute path of the file inside node_modules. */
  file: string;
  /** The bare specifier the console imports it by (import map), when it is a module. */
  specifier?: string;
}

/**
 * The only files of node_modules the console may load, by their URL name under
 * /console/vendor/. Anything else there is a 404: node_modules is never served as a tree.
 * Versions are pinned in package.json (preact, htm, uplot).
 */
export const VENDOR_FILES: Readonly<Record<string, VendorFile>> = {
  'preact.mjs': { file: join(packageDir('preact'), 'dist/preact.mjs'), specifier: 'preact' },
  'preact-hooks.mjs': { file: join(packageDir('preact'), 'hooks/dist/hooks.mjs'), specifier: 'preact/hooks' },
  'htm.mjs': { file: join(packageDir('htm'), 'dist/htm.mjs'), specifier: 'htm' },
  'uplot.mjs': { file: join(packageDir('uplot'), 'dist/uPlot.esm.js'), specifier: 'uplot' },
  'uplot.css': { file: join(packageDir('uplot'), 'dist/uPlot.min.css') },
};

/** A console source path: lower-case words, folders allowed, only what a browser loads. */
export const CONSOLE_FILE_PATTERN = /^[a-z0-9][a-z0-9-]*(?:\/[a-z0-9][a-z0-9-]*)*\.(?:js|css|svg)$/;

/** The import map: bare specifiers the console's modules use, resolved to Rampart's own URLs. */
export function importMap(): string {
  const imports: Record<string, string> = {};
  for (const [name, entry] of Object.entries(VENDOR_FILES)) if (entry.specifier) imports[entry.specifier] = `/console/vendor/${name}`;
  return JSON.stringify({ imports });
}

/** The CSP source for an inline script: the import map is the page's one inline script, allowed by its hash alone. */
export function scriptHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}
