import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { request } from 'undici';
import { freshBenchDatabase } from './_lib/bench-database.ts';
import { loadConfig } from '../config/load-config.ts';
import { createApp } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { TENANT_SCOPES } from '../core/domain/scopes.ts';
import { generateToken } from '../core/auth/token-codec.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * POST /api/findings/import at scale: a 100,000-result nuclei JSONL file and a
 * 100,000-result SARIF file (shaped like the real outputs in test/fixtures/imports/),
 * uploaded over a real socket and imported into a fresh database, then imported again
 * (every result already known). The baseline, in the same run, is a plain parse of the same
 * file (readFileSync + JSON.parse, per line for JSONL): what an importer that holds the
 * document would pay. Memory is sampled every 20 ms (RSS and V8 heap); the smaller file
 * (10,000 results) shows whether the import's memory grows with the results.
 *
 *   npm run bench -- imports                   SQLite only
 *   npm run bench -- imports --mysql           also MariaDB (database rampart_bench_imports)
 *   --engine=sqlite|mysql  --results=N  --no-report
 */
const arg = (name: string): string | undefined => process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const RESULTS = arg('results') ? Number(arg('results')) : 100_000;
const SMALL = Math.max(1, Math.round(RESULTS / 10));
const mysqlBase = process.argv.includes('--mysql') ? 'mysql://root@127.0.0.1:3306/rampart_bench_imports' : /^(mysql|mariadb):/.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;
const log = (msg: string) => console.log(msg);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Writes a file line by line without holding it. */
async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(file);
  for (const line of lines) if (!out.write(line)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

function* nucleiLines(n: number): Generator<string> {
  const templates = ['git-config', 'exposed-gitignore', 'http-missing-security-headers', 'tech-detect', 'CVE-2018-15473', 'phpinfo-files', 'robots-txt', 'dockerfile-hidden-disclosure'];
  for (let i = 0; i < n; i++) {
    const id = templates[i % templates.length]!;
    const host = `host-${i % 500}.bench.example`;
    yield `${JSON.stringify({
      template: `http/${id}.yaml`, 'template-id': id, 'template-path': `/root/nuclei-templates/http/${id}.yaml`,
      info: { name: `Bench ${id}`, author: ['pdteam'], tags: ['exposure', 'bench'], description: 'A sensitive file or header finding of the benchmark, shaped like nuclei v3 output.', reference: ['https://example.org/ref'], severity: ['info', 'low', 'medium', 'high'][i % 4], classification: i % 3 ? { 'cve-id': null, 'cwe-id': ['cwe-200'], 'cvss-metrics': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 'cvss-score': 5.3 } : { 'cwe-id': ['cwe-200'] } },
      'matcher-name': i % 2 ? 'x-frame-options' : undefined, type: 'http', host, port: '443', scheme: 'https', url: `https://${host}`, 'matched-at': `https://${host}/path/${i}`,
      'extracted-results': i % 5 ? undefined : [`value-${i}`], ip: `10.0.0.${i % 250}`, timestamp: '2026-01-12T13:46:54.716706997Z', 'matcher-status': true,
    })}\n`;
  }
}

function* sarifParts(n: number): Generator<string> {
  const rules = Array.from({ length: 200 }, (_, r) => ({ id: `BENCH${r}`, name: `bench/rule-${r}`, shortDescription: { text: `Benchmark rule ${r}` }, fullDescription: { text: 'A rule of the benchmark, with a description as long as a real one. '.repeat(3) }, help: { text: 'Fix it the way the rule says.' }, defaultConfiguration: { level: ['error', 'warning', 'note'][r % 3] }, properties: { tags: ['security', `external/cwe/cwe-${79 + (r % 10)}`], 'security-severity': String((r % 100) / 10) } }));
  yield `{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{"tool":{"driver":${JSON.stringify({ name: 'BenchSAST', version: '1.0.0', rules })}},"results":[\n`;
  for (let i = 0; i < n; i++) {
    const r = i % 200;
    yield `${i ? ',' : ''}${JSON.stringify({ ruleId: `BENCH${r}`, ruleIndex: r, message: { text: `Tainted value reaches sink number ${i}.` }, locations: [{ physicalLocation: { artifactLocation: { uri: `src/module-${i % 1000}/file-${i}.js`, uriBaseId: '%SRCROOT%' }, region: { startLine: 1 + (i % 400), startColumn: 5, endColumn: 40, snippet: { text: '  const value = request.query.value;' } } } }], partialFingerprints: { primaryLocationLineHash: `${i.toString(16)}:1` } })}\n`;
  }
  yield ']}]}\n';
}

/** Runs `work` while sampling RSS and heap; returns the peaks above the starting point. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; rss: number; heap: number; retained: number }> {
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  let rss = rss0;
  let heap = heap0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 20);
  const started = process.hrtime.bigint();
  try {
    const value = await work();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // The peak includes garbage V8 had not collected yet; what the import still holds after a
    // full collection is what would grow with the file if it were held.
    global.gc?.();
    return { value, seconds, rss: rss - rss0, heap: heap - heap0, retained: process.memoryUsage().heapUsed - heap0 };
  } finally {
    clearInterval(sampler);
  }
}

/** The baseline: read and parse the whole file, as an importer holding the document would. Synchronous, so memory is read while the document is still held. */
function plainParse(file: string, format: 'nuclei' | 'sarif'): { seconds: number; heap: number; rss: number } {
  global.gc?.();
  const before = process.memoryUsage();
  const started = process.hrtime.bigint();
  const text = readFileSync(file, 'utf8');
  const parsed = format === 'sarif' ? (JSON.parse(text) as { runs: Array<{ results: unknown[] }> }).runs[0]!.results : text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = process.memoryUsage();
  if (!parsed.length) throw new Error('nothing parsed');
  return { seconds, heap: after.heapUsed - before.heapUsed, rss: after.rss - before.rss };
}

async function upload(base: string, token: string, query: string, file: string): Promise<Record<string, number>> {
  const res = await request(`${base}/api/findings/import?${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(statSync(file).size) }, body: createReadStream(file), headersTimeout: 0, bodyTimeout: 0 });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`import answered ${res.statusCode}: ${text.slice(0, 400)}`);
  return (JSON.parse(text) as { data: Record<string, number> }).data;
}

async function runEngine(engine: 'sqlite' | 'mysql', files: Record<string, string>): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'rampart-bench-imports-'));
  const url = engine === 'sqlite' ? `sqlite:${join(work, 'bench.db')}` : await freshBenchDatabase(mysqlBase!, 'rampart_bench_imports');
  const config = loadConfig({ env: {}, overrides: { database: { url }, log: { level: 'warn' }, server: { host: '127.0.0.1', port: 0 }, auth: { bootstrapAdminToken: generateToken() }, rateLimit: { enabled: false }, secrets: { key: randomBytes(32).toString('base64') }, imports: { spoolDir: work } } });
  const app = await createApp(config, { routes: routePlugins, roles: ['api'] });
  const lines = [`Results per file: ${RESULTS.toLocaleString('en')} (and ${SMALL.toLocaleString('en')} for the memory comparison). Import over a real socket into an empty database (first import), then the same file again (every result already known).`, '', '| file | size | plain parse s (baseline) | parse heap held | import s | ratio import/parse | results/s | import peak RSS | import peak heap | heap held after the import (full GC) | re-import s |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  try {
    await app.start();
    const base = app.server.info.uri;
    for (const [label, file, format] of [[`nuclei JSONL, ${SMALL}`, files.nucleiSmall, 'nuclei'], [`nuclei JSONL, ${RESULTS}`, files.nuclei, 'nuclei'], [`SARIF, ${SMALL}`, files.sarifSmall, 'sarif'], [`SARIF, ${RESULTS}`, files.sarif, 'sarif']] as const) {
      const tenant = await app.ctx.services.admin.createTenant({ name: `bench-${label}-${Date.now()}`, tier: 'enterprise' });
      const { token } = await app.ctx.services.admin.createToken(tenant.id, { name: 'bench', scopes: TENANT_SCOPES, expiresAt: null });
      const asset = await app.ctx.services.assets.create(tenant.id, { name: `bench-${Date.now()}.example`, type: 'domain' });
      const parse = plainParse(file!, format);
      const first = await measured(() => upload(base, token, `format=${format}&asset_id=${asset.id}`, file!));
      const again = await measured(() => upload(base, token, `format=${format}&asset_id=${asset.id}`, file!));
      if (again.value.created !== 0) throw new Error(`re-import created ${again.value.created}`);
      log(`[${engine}] ${label}: parse ${parse.seconds.toFixed(2)} s (heap +${mb(parse.heap)}), import ${first.seconds.toFixed(1)} s (created ${first.value.created}, RSS +${mb(first.rss)}, heap +${mb(first.heap)}), re-import ${again.seconds.toFixed(1)} s`);
      lines.push(`| ${label} | ${mb(statSync(file!).size)} | ${parse.seconds.toFixed(2)} | ${mb(parse.heap)} | ${first.seconds.toFixed(1)} | ${(first.seconds / parse.seconds).toFixed(0)}× | ${Math.round(first.value.results! / first.seconds).toLocaleString('en')} | ${mb(first.rss)} | ${mb(first.heap)} | ${mb(first.retained)} | ${again.seconds.toFixed(1)} |`);
    }
    lines.push('', 'Peaks are above the process\'s state just before each step, sampled every 20 ms; the peak heap includes garbage V8 had not collected yet (it lets the heap grow before a full collection), so the figure to compare across file sizes is the heap held after the import, measured after a full collection. The import reads the upload three times at most (spool to disk, validate everything, write in batches of 500 per transaction), so its memory is one batch plus one result, whatever the file\'s size; the plain parse holds the whole document.');
    if (!process.argv.includes('--no-report')) writeReportSection('imports', engine, lines);
    else log(lines.join('\n'));
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

log(`Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-import-files-'));
try {
  const files = { nuclei: join(dir, 'big.jsonl'), nucleiSmall: join(dir, 'small.jsonl'), sarif: join(dir, 'big.sarif'), sarifSmall: join(dir, 'small.sarif') };
  await writeLines(files.nuclei, nucleiLines(RESULTS));
  await writeLines(files.nucleiSmall, nucleiLines(SMALL));
  await writeLines(files.sarif, sarifParts(RESULTS));
  await writeLines(files.sarifSmall, sarifParts(SMALL));
  if (arg('engine') !== 'mysql') await runEngine('sqlite', files);
  if (mysqlBase && arg('engine') !== 'sqlite') await runEngine('mysql', files);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
