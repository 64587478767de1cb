import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freshBenchDatabase } from './_lib/bench-database.ts';
import { loadConfig } from '../config/load-config.ts';
import { createApp, type App } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { TENANT_SCOPES } from '../core/domain/scopes.ts';
import { generateToken } from '../core/auth/token-codec.ts';
import { writeReportSection } from './_lib/report.ts';
import { seedFindings } from './_lib/seed-findings.ts';
import { recountFindings } from '../core/findings/finding-recount.ts';

/**
 * Findings at scale: 1,000,000 findings over 10,000 assets, seeded straight through
 * knex, the maintained counters then filled by the operators' recount (--repair). Reads
 * (server.inject; p50/p99): stats, the unfiltered list and a status-only list (totals
 * from the counters), a filtered list, assets by risk, and free-text searches (FTS5 /
 * FULLTEXT); the same reads on 10,000 findings seeded the same way are the baseline that
 * shows whether a read grows with the findings. Then time and peak RSS of CSV exports
 * streamed over a real socket (memory must not grow with rows), and a 100,000-row CSV
 * bulk asset import.
 *
 *   npm run bench -- findings                       SQLite only
 *   npm run bench -- findings --mysql               also MariaDB (mysql://root@127.0.0.1:3306, database rampart_bench)
 *   DATABASE_URL=mysql://... npm run bench -- findings
 *   --engine=sqlite|mysql                           only one engine
 *   --no-report                                     print the figures instead of writing bench/reports/findings.md
 *   --findings=N --baseline-findings=N --assets=N --import-rows=N --iterations=N   smaller/larger runs
 *   --reads-only                                    skip the exports and the bulk import
 */
const arg = (name: string): string | undefined => process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const num = (name: string, fallback: number) => (arg(name) ? Number(arg(name)) : fallback);
const FINDINGS = num('findings', 1_000_000);
const BASELINE = num('baseline-findings', 10_000);
const ASSETS = num('assets', 10_000);
const IMPORT_ROWS = num('import-rows', 100_000);
const ITERATIONS = num('iterations', 100);
const mysqlFlag = arg('mysql');
const mysqlBase = process.argv.includes('--mysql') ? 'mysql://root@127.0.0.1:3306/rampart_bench' : mysqlFlag || (/^(mysql|mariadb):/.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null);

const log = (msg: string) => console.log(msg);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timeInject(app: App, token: string, url: string): Promise<{ p50: number; p99: number; mean: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < ITERATIONS + 5; i++) {
    const t = process.hrtime.bigint();
    const res = await app.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    status = res.statusCode;
    if (i >= 5) times.push(ms); // the first few warm caches
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, status };
}

/**
 * Streams an export over HTTP into nothing, sampling RSS every 20 ms and noting it at
 * every tenth of the expected rows (counted by line ends: the benchmark's text has none
 * inside cells), which shows whether memory grows with the rows streamed.
 */
async function timeExport(base: string, token: string, filters: Record<string, unknown>, expectedRows: number): Promise<{ seconds: number; bytes: number; rssBefore: number; rssPeak: number; series: number[] }> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  const res = await request(`${base}/api/findings/export`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ format: 'csv', filters }) });
  if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}: ${await res.body.text()}`);
  let bytes = 0;
  let lines = 0;
  const series: number[] = [];
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    bytes += buf.length;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines += 1;
    while (series.length < 10 && lines >= ((series.length + 1) * expectedRows) / 10) series.push(process.memoryUsage().rss);
  }
  clearInterval(sampler);
  return { seconds: (Date.now() - started) / 1000, bytes, rssBefore, rssPeak: Math.max(rssPeak, process.memoryUsage().rss), series };
}

async function bulkImport(app: App, token: string): Promise<{ seconds: number; imported: number; failed: number }> {
  const lines = ['name,type,tags'];
  for (let i = 0; i < IMPORT_ROWS; i++) lines.push(`import-${i}.bulk.example,domain,"bench,import"`);
  const started = Date.now();
  const res = await app.server.inject({ method: 'POST', url: '/api/assets/bulk', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, payload: lines.join('\n') });
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`bulk import answered ${res.statusCode}: ${res.payload.slice(0, 300)}`);
  const body = JSON.parse(res.payload) as { data: { imported: number; failed: number } };
  return { seconds: (Date.now() - started) / 1000, ...body.data };
}

type Timing = Awaited<ReturnType<typeof timeInject>>;

/** The reads timed at both sizes; searches name a word of ~0.1 % of the findings, a phrase with a word of all of them, a prefix, a common word. */
const READS: Array<[string, string]> = [
  ['GET /api/findings/stats', '/api/findings/stats'],
  ['GET /api/findings (no filter, default sort)', '/api/findings'],
  ['GET /api/findings?status=open', '/api/findings?status=open'],
  ['GET /api/findings?severity=critical,high&status=open&sort_by=severity', '/api/findings?severity=critical,high&status=open&sort_by=severity'],
  ['GET /api/assets?sort_by=risk_score', '/api/assets?sort_by=risk_score'],
  ['GET /api/findings?search=421', '/api/findings?search=421'],
  ['GET /api/findings?search="component 421"', `/api/findings?search=${encodeURIComponent('"component 421"')}`],
  ['GET /api/findings?search=4213*', `/api/findings?search=${encodeURIComponent('4213*')}`],
  ['GET /api/findings?search=heartbleed (no match)', '/api/findings?search=heartbleed'],
  ['GET /api/findings?search=critical (5 % of the findings)', '/api/findings?search=critical'],
];

interface SizeRun {
  findings: number;
  seedSeconds: number;
  historyRows: number;
  backfillSeconds: number;
  reads: Map<string, Timing & { total: number }>;
}

/** Seeds `findings` rows into a fresh database, fills the counters, times READS; `more` runs with the app still up. */
async function runSize(engine: 'sqlite' | 'mysql', findings: number, more?: (app: App, token: string, tenantId: string) => Promise<void>): Promise<SizeRun> {
  const work = mkdtempSync(join(tmpdir(), 'rampart-bench-'));
  const url = engine === 'sqlite' ? `sqlite:${join(work, 'bench.db')}` : await freshBenchDatabase(mysqlBase!, 'rampart_bench');
  const config = loadConfig({
    env: {},
    overrides: {
      database: { url }, log: { level: 'warn' }, server: { host: '127.0.0.1', port: 0 },
      auth: { bootstrapAdminToken: generateToken() }, rateLimit: { enabled: false },
      secrets: { key: randomBytes(32).toString('base64') },
      exports: { directory: join(work, 'exports'), syncMaxRows: 10_000_000, maxRows: 10_000_000 },
      assets: { bulk: { maxRows: Math.max(100_000, IMPORT_ROWS) } },
    },
  });
  const app = await createApp(config, { routes: routePlugins });
  try {
    const tenant = await app.ctx.services.admin.createTenant({ name: `bench-${Date.now()}`, tier: 'enterprise' });
    const { token } = await app.ctx.services.admin.createToken(tenant.id, { name: 'bench', scopes: TENANT_SCOPES, expiresAt: null });
    const assets = Math.max(10, Math.round((ASSETS * findings) / FINDINGS));
    log(`[${engine}] seeding ${findings} findings over ${assets} assets`);
    const seeded = await seedFindings(app.ctx.db, tenant.id, assets, findings, log);
    log(`[${engine}] seeded in ${seeded.seconds.toFixed(1)} s (${seeded.historyRows} history rows)`);
    const backfillStarted = Date.now();
    const recount = await recountFindings(app.ctx.db, { tenantId: tenant.id, repair: true });
    const backfillSeconds = (Date.now() - backfillStarted) / 1000;
    if (recount.inconsistent !== 1) throw new Error('the seeded rows should have needed a counter backfill');
    log(`[${engine}] counters backfilled by the recount in ${backfillSeconds.toFixed(1)} s`);
    if (engine === 'sqlite') await app.ctx.db.raw('ANALYZE');
    else await app.ctx.db.raw('ANALYZE TABLE findings, assets, finding_status_history');
    const reads = new Map<string, Timing & { total: number }>();
    for (const [label, path] of READS) {
      const r = await timeInject(app, token, path);
      if (r.status !== 200) throw new Error(`${label} answered ${r.status}`);
      const res = await app.server.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
      const body = JSON.parse(res.payload) as { meta?: { total: number }; data: { total?: number } };
      const total = body.meta?.total ?? body.data.total ?? 0;
      log(`[${engine}] ${findings}: ${label}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (total ${total})`);
      reads.set(label, { ...r, total });
    }
    if (more) await more(app, token, tenant.id);
    return { findings, seedSeconds: seeded.seconds, historyRows: seeded.historyRows, backfillSeconds, reads };
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function exportsAndImport(app: App, token: string, tenantId: string, lines: string[], engine: string): Promise<void> {
  await app.start();
  const base = app.server.info.uri;
  const smallRows = Number((await app.ctx.db('findings').where({ tenant_id: tenantId }).whereIn('severity_rank', [4, 3]).count({ n: '*' }).first())!.n);
  const small = await timeExport(base, token, { severity: ['critical', 'high'] }, smallRows);
  const full = await timeExport(base, token, {}, FINDINGS);
  log(`[${engine}] CSV export ${smallRows} rows: ${small.seconds.toFixed(1)} s, peak RSS +${mb(small.rssPeak - small.rssBefore)}`);
  log(`[${engine}] CSV export ${FINDINGS} rows: ${full.seconds.toFixed(1)} s, ${mb(full.bytes)}, peak RSS ${mb(full.rssPeak)} (+${mb(full.rssPeak - full.rssBefore)})`);
  lines.push('', '| CSV export over HTTP (streamed, body discarded) | rows | time s | rows/s | size | RSS before | peak RSS | peak − before |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label, r, rows] of [['critical+high', small, smallRows], ['all findings', full, FINDINGS]] as const) {
    lines.push(`| ${label} | ${rows.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${Math.round(rows / r.seconds).toLocaleString('en')} | ${mb(r.bytes)} | ${mb(r.rssBefore)} | ${mb(r.rssPeak)} | ${mb(r.rssPeak - r.rssBefore)} |`);
  }
  lines.push('', `RSS while the ${FINDINGS.toLocaleString('en')}-row export streamed, at each tenth of the rows (the baseline is the RSS before it started): ${[full.rssBefore, ...full.series].map(mb).join(' → ')}.`);
  lines.push('', 'The process RSS includes what seeding and the read benchmarks left behind (V8 and SQLite do not hand freed memory back to the OS); the flat-memory figure is the growth during the export, and the series above.');

  const imported = await bulkImport(app, token);
  log(`[${engine}] bulk import ${IMPORT_ROWS} CSV rows: ${imported.seconds.toFixed(1)} s (${imported.imported} imported, ${imported.failed} failed)`);
  lines.push('', '| bulk import (POST /api/assets/bulk, text/csv) | rows | time s | rows/s | imported | failed |', '|---|---:|---:|---:|---:|---:|');
  lines.push(`| ${IMPORT_ROWS.toLocaleString('en')} new domains | ${IMPORT_ROWS.toLocaleString('en')} | ${imported.seconds.toFixed(1)} | ${Math.round(IMPORT_ROWS / imported.seconds).toLocaleString('en')} | ${imported.imported} | ${imported.failed} |`);
}

async function runEngine(engine: 'sqlite' | 'mysql'): Promise<void> {
  const baseline = await runSize(engine, BASELINE);
  const tail: string[] = [];
  const big = await runSize(engine, FINDINGS, (app, token, tenantId) => (process.argv.includes('--reads-only') ? Promise.resolve() : exportsAndImport(app, token, tenantId, tail, engine)));
  const n = (x: number) => x.toLocaleString('en');
  const lines: string[] = [];
  for (const run of [baseline, big]) {
    lines.push(`Seeded ${n(run.findings)} findings (+${n(run.historyRows)} status-history rows) in ${run.seedSeconds.toFixed(1)} s; counters backfilled by \`recountFindings(…, { repair: true })\` in ${run.backfillSeconds.toFixed(1)} s.`, '');
  }
  lines.push(`| request (server.inject, ${ITERATIONS} runs after 5 warm-ups) | total at ${n(baseline.findings)} | p50 ms | p99 ms | total at ${n(big.findings)} | p50 ms | p99 ms | p50 ratio |`, '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label] of READS) {
    const a = baseline.reads.get(label)!;
    const b = big.reads.get(label)!;
    lines.push(`| \`${label}\` | ${n(a.total)} | ${a.p50.toFixed(1)} | ${a.p99.toFixed(1)} | ${n(b.total)} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${(b.p50 / a.p50).toFixed(2)} |`);
  }
  lines.push(...tail);
  if (!process.argv.includes('--no-report')) writeReportSection('findings', engine, lines);
  else log(lines.join('\n'));
}

log(`Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
if (arg('engine') !== 'mysql') await runEngine('sqlite');
if (mysqlBase && arg('engine') !== 'sqlite') await runEngine('mysql');
