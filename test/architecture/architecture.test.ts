// Guard-rails for the layout DESIGN.md describes. Each rule names itself and every
// import that breaks it, so the next engineer sees what to move, not just "failed".
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { cyclesOf, importsOf, sourceFiles, under, type ImportEdge } from './import-graph.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['core', 'plugins', 'scanners', 'executors', 'forwarders', 'test/fixtures'].filter((f) => existsSync(join(ROOT, f)));
const FILES = sourceFiles(ROOT, FOLDERS);
const EDGES = FILES.flatMap((f) => importsOf(ROOT, f));

/** Extensions: everything a third party could have written. */
const EXTENSION_ROOTS = ['scanners', 'executors', 'forwarders', 'plugins/forwarders', ...fixtureRoots()];
const CONTRACT = ['core/plugin-api', 'rampart/plugin-api', 'rampart/author-kit'];
/** Where SQL may be built: repositories, the database layer and the durable-work kernel. */
const isQueryLayer = (f: string): boolean => /-repository\.ts$/.test(f) || under(f, 'core/db', 'core/work');

function fixtureRoots(): string[] {
  return [...new Set(FILES.filter((f) => under(f, 'test/fixtures')).map((f) => f.split('/').slice(0, 3).join('/')))];
}

function extensionRootOf(file: string): string | undefined {
  return EXTENSION_ROOTS.find((r) => under(file, r));
}

function report(rule: string, broken: readonly string[]): string {
  return `${rule}\n${broken.map((b) => `  - ${b}`).join('\n')}`;
}

const show = (e: ImportEdge): string => `${e.from}:${e.line} imports ${e.to}`;

test('knex only in repositories, core/db and core/work', (t) => {
  const broken: string[] = [];
  for (const e of EDGES) if (e.to === 'knex' && under(e.from, 'core', 'plugins') && !isQueryLayer(e.from)) broken.push(show(e));
  // Building a query without importing knex: `db('table')`, `trx('table')`, `.raw(`.
  const QUERY = /\b(?:db|trx|tx|knex|this\.db|deps\.db)\s*\(\s*['"][a-z_]+['"]|\.raw\(/;
  for (const f of FILES) {
    if (!under(f, 'core', 'plugins') || isQueryLayer(f) || under(f, 'core/db/migrations')) continue;
    readFileSync(join(ROOT, f), 'utf8').split('\n').forEach((text, i) => {
      if (QUERY.test(text) && !/^\s*(\/\/|\*)/.test(text)) broken.push(`${f}:${i + 1} builds a query: ${text.trim().slice(0, 100)}`);
    });
  }
  t.deepEqual(broken, [], report('Rule: only repositories (*-repository.ts), core/db/ and core/work/ use knex; move the query into the feature\'s repository.', broken));
});

test('routes never import repositories', (t) => {
  const broken = EDGES.filter((e) => under(e.from, 'plugins') && !extensionRootOf(e.from) && (/-repository\.ts$/.test(e.to) || e.to === 'knex')).map(show);
  t.deepEqual(broken, [], report('Rule: route plugins (plugins/<area>/) call services only; add a service method instead of importing a repository.', broken));
});

test('extensions import only the public contract', (t) => {
  const broken = EDGES.filter((e) => {
    const own = extensionRootOf(e.from);
    if (!own) return false;
    if (!e.to.includes('/') && !e.to.startsWith('.')) return false; // a bare npm package or builtin
    if (e.to.startsWith('node:') || under(e.to, own)) return false;
    if (CONTRACT.some((c) => under(e.to, c))) return false;
    // Anything else inside the repository, or a package path into Rampart, breaks the boundary.
    return !/^(@[^/]+\/)?[a-z0-9][\w.-]*(\/|$)/.test(e.to) || e.to.startsWith('rampart') || existsSync(join(ROOT, e.to));
  }).map(show);
  t.deepEqual(broken, [], report('Rule: scanners, executors, forwarders and third-party fixtures import only the contract (core/plugin-api, rampart/plugin-api, rampart/author-kit), their own folder and npm packages.', broken));
});

test('the contract and the shared words import nothing internal', (t) => {
  const internal = (e: ImportEdge): boolean => existsSync(join(ROOT, e.to)) || e.to.startsWith('core/');
  const broken = EDGES.filter((e) => {
    if (under(e.from, 'core/domain')) return internal(e) && !under(e.to, 'core/domain');
    if (under(e.from, 'core/plugin-api')) return internal(e) && !under(e.to, 'core/plugin-api', 'core/domain');
    return false;
  }).map(show);
  t.deepEqual(broken, [], report('Rule: core/domain/ imports nothing; core/plugin-api/ imports only itself and core/domain/.', broken));
});

test('nothing in core/ imports plugins/, scanners/, executors/ or forwarders/', (t) => {
  // The one exception is the process entry point: it hands the route list (plugins/index.ts)
  // to createApp, as the test harness does; nothing in core/ imports the entry point.
  const entry = (e: ImportEdge): boolean => e.from === 'core/main.ts' && e.to === 'plugins/index.ts';
  const broken = EDGES.filter((e) => under(e.from, 'core') && under(e.to, 'plugins', 'scanners', 'executors', 'forwarders') && !entry(e)).map(show);
  const intoEntry = EDGES.filter((e) => under(e.from, 'core') && e.to === 'core/main.ts').map(show);
  t.deepEqual([...broken, ...intoEntry], [], report('Rule: core/ knows extensions only through the loader and the contract, and route plugins only through core/main.ts (the entry point, which nothing imports).', [...broken, ...intoEntry]));
});

test('no import cycles between folders', (t) => {
  // A folder is core/<feature>, plugins/<area>, scanners/<name>…; a file directly in core/ counts alone.
  const unit = (p: string): string => (p.split('/').length === 2 ? p : p.split('/').slice(0, 2).join('/'));
  const graph = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const e of EDGES) {
    if (!existsSync(join(ROOT, e.to))) continue;
    const [a, b] = [unit(e.from), unit(e.to)];
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
    if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, show(e));
  }
  const broken = cyclesOf(graph).map((scc) => {
    const inside = new Set(scc);
    const edges = scc.flatMap((a) => [...(graph.get(a) ?? [])].filter((b) => inside.has(b)).map((b) => why.get(`${a}>${b}`)!));
    return `${scc.join(' <-> ')}\n      ${edges.join('\n      ')}`;
  });
  t.deepEqual(broken, [], report('Rule: folders depend on each other in one direction; break each cycle below by moving the shared piece down (often to core/domain/).', broken));
});
