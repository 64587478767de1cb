import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { ROOT } from '../_helpers/harness/spawn-service.ts';
import { pathProblem, unreachablePages, unresolvedPaths, type Doc, type RepoView } from './doc-rules.ts';

// Docs that cannot drift: every path a document or a source comment names in code
// (`core/plugins/run-check.ts`, `scope-guard.ts`) is a file or folder of this tree, and
// every page of docs/ is reachable by links from README.md or DESIGN.md.

const SKIP = new Set(['node_modules', '.git', 'dist', 'reports']);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) walk(rel, out);
    else out.push(rel);
  }
  return out;
}

const FILES = walk('');
const BASENAMES = new Set(FILES.map((f) => basename(f)));
const REPO: RepoView = {
  exists: (p) => existsSync(join(ROOT, p)),
  hasBasename: (n) => BASENAMES.has(n),
  hasSuffix: (p) => FILES.some((f) => f === p || f.endsWith(`/${p}`)),
  inPackage: (p) => existsSync(join(ROOT, 'node_modules', p)),
};
const read = (path: string): Doc => ({ path, text: readFileSync(join(ROOT, path), 'utf8') });

/** DESIGN.md, README.md and every page under docs/ (bench reports are measurements, not docs). */
const MARKDOWN = FILES.filter((f) => f.endsWith('.md') && !f.startsWith('test/fixtures/')).map(read);
/** Source files whose comments are read: the shipped code, its tests and benchmarks. */
const SOURCES = FILES.filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.startsWith('test/fixtures/')).map(read);

test('every path DESIGN.md, the docs and the READMEs name in code exists', (t) => {
  t.true(MARKDOWN.length > 30);
  t.deepEqual(unresolvedPaths(MARKDOWN, REPO), []);
});

test('every path a source comment names in code exists', (t) => {
  t.true(SOURCES.length > 500);
  t.deepEqual(unresolvedPaths(SOURCES, REPO), []);
});

test('every page of docs/ is reachable by links from README.md or DESIGN.md', (t) => {
  t.deepEqual(unreachablePages(MARKDOWN), []);
});

const PLANTED_REPO: RepoView = {
  exists: (p) => ['core', 'core/plugins', 'core/plugins/run-check.ts', 'core/runtime/launch.mjs', 'docs', 'docs/plugins.md', 'docs/design', 'docs/design/scans.md'].includes(p),
  hasBasename: (n) => ['run-check.ts', 'plugins.md', 'scans.md'].includes(n),
  hasSuffix: (p) => 'core/plugins/run-check.ts'.endsWith(`/${p}`),
  inPackage: (p) => p === 'semver/functions/valid.js',
};

test('the path rule reports planted stale paths and lets real ones, placeholders and non-paths pass', (t) => {
  const doc: Doc = {
    path: 'docs/design/scans.md',
    text: [
      'Runs in `core/plugins/run-check.ts` (see `../plugins.md`, `run-check.ts`, `plugins/run-check.ts` of core, `core/plugins/`).',
      'Stale: `core/author-kit/run-check.ts`, `testing.ts`, `../../../shared/formats.md`, `author-kit/scoped-http.ts`; in prose, formats.md §3.1 and core/scans/gone.ts.',
      'Not paths: `scanners/<name>/checks/`, `/api/scan/create`, `rampart/plugin-api`, `npm run bench`, `https://x.test/a.md`, `semver/functions/valid.js`, `./data`, `backup.sql`, `.ts`, `docs/…`.',
      '```',
      'core/plugins/run-check.ts   runCheck',
      'core/scans/gone.ts          removed',
      'node core/runtime/launch.mjs core/main --role all',
      '```',
    ].join('\n'),
  };
  const source: Doc = {
    path: 'core/plugin-api/index.ts',
    text: "/**\n * The kit: `./testing.ts`, and the wire (formats.md §3.1).\n */\nconst url = 'http://x/* `gone.ts` */'; // `core/plugins/run-check.ts`\nconst re = /^\\/\\//; // `core/gone.ts`\n",
  };
  t.deepEqual(unresolvedPaths([doc, source], PLANTED_REPO), [
    'docs/design/scans.md:1 `plugins/run-check.ts` no such file or folder',
    'docs/design/scans.md:2 `core/author-kit/run-check.ts` no such file or folder',
    'docs/design/scans.md:2 `testing.ts` no file of this name in the repository',
    'docs/design/scans.md:2 `../../../shared/formats.md` points outside the repository',
    'docs/design/scans.md:2 `author-kit/scoped-http.ts` no file with this path in the repository',
    'docs/design/scans.md:2 `formats.md` no file of this name in the repository',
    'docs/design/scans.md:2 `core/scans/gone.ts` no such file or folder',
    'docs/design/scans.md:6 `core/scans/gone.ts` no such file or folder',
    'core/plugin-api/index.ts:2 `./testing.ts` core/plugin-api/testing.ts does not exist',
    'core/plugin-api/index.ts:2 `formats.md` no file of this name in the repository',
    'core/plugin-api/index.ts:5 `core/gone.ts` no such file or folder',
  ]);
  t.is(pathProblem(doc, 'docs/design/', PLANTED_REPO), null);
});

test('the reachability rule reports a planted orphan, two orphans citing each other, and a page reached only through a folder link', (t) => {
  const docs: Doc[] = [
    { path: 'README.md', text: 'Read [the design](DESIGN.md) and [plugins](docs/plugins.md#writing).' },
    { path: 'DESIGN.md', text: 'Areas: [docs/design/](docs/design/), [scans](docs/design/scans.md). `[not a link](docs/design/cacao.md)`' },
    { path: 'docs/plugins.md', text: 'See [api](api.md).' },
    { path: 'docs/api.md', text: 'Back to [plugins](./plugins.md).' },
    { path: 'docs/design/scans.md', text: '' },
    { path: 'docs/design/cacao.md', text: 'See [ports](port-scanning.md).' },
    { path: 'docs/design/port-scanning.md', text: 'See [cacao](cacao.md).' },
    { path: 'docs/design/lonely.md', text: '' },
  ];
  t.deepEqual(unreachablePages(docs), ['docs/design/cacao.md', 'docs/design/port-scanning.md', 'docs/design/lonely.md']);
});

test('the repository view reads the whole tree', (t) => {
  for (const f of ['DESIGN.md', 'docs/plugins.md', 'core/plugins/run-check.ts', 'scanners/_lib/address-only.mjs']) t.true(FILES.includes(f), f);
  t.false(FILES.some((f) => f.includes('node_modules/')));
  t.is(relative(ROOT, join(ROOT, 'docs')), 'docs');
});
