import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledModule } from '../../_helpers/console/compiled-start.ts';
import { ROOT } from '../../_helpers/harness/spawn-service.ts';
import * as consoleSources from '../../../plugins/console/console-assets.ts';
import * as rule from '../../../core/runtime/project-files.ts';

// Issue 24, defect 1: every route that serves files from disk finds them at the same place
// whether Rampart runs from the sources (tsx) or from dist/ (`npm start`).

const compiled = async <T>(source: string): Promise<T> => (await import(pathToFileURL(await compiledModule(source)).href)) as T;

test('the console folder is the checkout\'s console/, from the sources and from dist/', async (t) => {
  t.timeout(180_000);
  const fromDist = await compiled<typeof consoleSources>('plugins/console/console-assets.ts');
  t.is(consoleSources.CONSOLE_DIR.replace(/\/$/, ''), join(ROOT, 'console'));
  t.is(fromDist.CONSOLE_DIR.replace(/\/$/, ''), join(ROOT, 'console'));
  t.true(existsSync(join(fromDist.CONSOLE_DIR, 'app', 'main.js')));
  t.deepEqual(fromDist.VENDOR_FILES, consoleSources.VENDOR_FILES);
});

test('the rule resolves the checkout and its packages identically from the sources and from dist/', async (t) => {
  t.timeout(180_000);
  const fromDist = await compiled<typeof rule>('core/runtime/project-files.ts');
  t.is(rule.PROJECT_ROOT, ROOT.replace(/\/$/, ''));
  t.is(fromDist.PROJECT_ROOT, rule.PROJECT_ROOT);
  for (const path of ['console', 'resources/fonts/DejaVuSans.ttf', 'resources/sarif/sarif-schema-2.1.0.json', 'resources/cacao-v2/schemas']) {
    t.is(fromDist.projectPath(path), rule.projectPath(path), path);
    t.true(existsSync(fromDist.projectPath(path)), path);
  }
  for (const name of ['swagger-ui-dist', 'preact', 'htm', 'uplot']) t.is(fromDist.packageDir(name), rule.packageDir(name), name);
});

/** Source files that locate a file relative to their own module, other than code they import or run. */
function ownRelativeFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) ownRelativeFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      for (const m of readFileSync(path, 'utf8').matchAll(/new URL\(\s*['`]([^'`]+)['`]\s*,\s*import\.meta\.url\s*\)/g)) {
        // Code (worker entries, modules) and package.json (dist/ has its own) are meant to be found beside the code.
        if (!/\.(?:m?js|ts)$|(?:^|\/)package\.json$/.test(m[1]!)) out.push(`${relative(ROOT, path)}: ${m[1]}`);
      }
    }
  }
  return out;
}

test('no module finds a file on disk relative to itself: the one rule is core/runtime/project-files.ts', (t) => {
  const offenders = ['core', 'plugins', 'config', 'scanners', 'executors', 'forwarders', 'agent'].flatMap((d) => ownRelativeFiles(join(ROOT, d)))
    .filter((line) => !line.startsWith('core/runtime/project-files.ts'));
  t.deepEqual(offenders, []);
});
