import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshBenchDatabase } from './_lib/bench-database.ts';
import { writeReportSection } from './_lib/report.ts';
import { seedFindings } from './_lib/seed-findings.ts';
import { profileTables } from './_lib/cpu-profile.ts';
import { bareInsert, kevCatalog, plainScan, profiled, sampled, seedKeys, triageSarif, upload, writeParts } from './_lib/triage-steps.ts';
import { loadConfig } from '../config/load-config.ts';
import { createApp } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { TENANT_SCOPES } from '../core/domain/scopes.ts';
import { generateToken } from '../core/auth/token-codec.ts';
import { rededupFindings } from '../core/findings/finding-rededup.ts';
import { FeedStore } from '../core/feeds/feed-store.ts';

/**
 * Issue 27's triage figures, on a tenant already holding N findings (bulk-seeded like
 * bench/findings.ts, plus a prior SARIF import of a fifth of the file through the real path,
 * so those findings carry fingerprint keys and CVEs): (1) a 10,000-result SARIF import over
 * a real socket, dedup included; (2) the same file again (adds nothing); (3) the re-dedup of
 * the tenant (`rededupFindings`, what `rampart admin findings rededup` runs), with peak RSS;
 * (4) a KEV catalog load of ~1,500 CVEs through `FeedStore.load`. Baselines in the same run:
 * a bare batched insert of 10,000 finding rows in one transaction (1, 2); a plain keyset scan
 * of the tenant's findings in the rededup's batch size (3); the first KEV load, into the same
 * database before seeding (4).
 *
 *   npm run bench -- triage                       SQLite, N = 1,000,000
 *   npm run bench -- triage --findings=100000     smaller run
 *   DATABASE_URL=mysql://... npm run bench -- triage   MariaDB (database rampart_bench_triage)
 *   --results=N --kev=N --batch=N --engine=sqlite|mysql --no-report --no-profile
 */
const arg = (name: string): string | undefined => process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const num = (name: string, env: string, fallback: number) => (arg(name) ? Number(arg(name)) : process.env[env] ? Number(process.env[env]) : fallback);
const FINDINGS = num('findings', 'TRIAGE_FINDINGS', 1_000_000);
const RESULTS = num('results', 'TRIAGE_RESULTS', 10_000);
const KEV = num('kev', 'TRIAGE_KEV', 1_500);
const BATCH = num('batch', 'TRIAGE_BATCH', 500);
const PRIOR = Math.round(RESULTS / 5);
const ASSETS = Math.max(10, Math.round(FINDINGS / 100));
const mysqlBase = process.argv.includes('--mysql') ? 'mysql://root@127.0.0.1:3306/rampart_bench_triage' : /^(mysql|mariadb):/.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;
const log = (msg: string) => console.log(msg);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const n = (x: number) => x.toLocaleString('en');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function runEngine(engine: 'sqlite' | 'mysql', files: { sarif: string; prior: string }): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'rampart-bench-triage-'));
  const url = engine === 'sqlite' ? `sqlite:${join(work, 'bench.db')}` : await freshBenchDatabase(mysqlBase!, 'rampart_bench_triage');
  const config = loadConfig({ env: {}, overrides: { database: { url }, log: { level: 'warn' }, server: { host: '127.0.0.1', port: 0 }, auth: { bootstrapAdminToken: generateToken() }, rateLimit: { enabled: false }, secrets: { key: randomBytes(32).toString('base64') }, imports: { spoolDir: work } } });
  const app = await createApp(config, { routes: routePlugins, roles: ['api'] });
  const db = app.ctx.db;
  try {
    await app.start();
    const feeds = new FeedStore(db, { maxBytes: 256 * 2 ** 20, keepChangeSets: 5 });
    const kevFirst = await sampled(() => feeds.load('kev', { kind: 'file', location: 'bench-kev-1.json' }, kevCatalog(KEV, 0)));
    log(`[${engine}] KEV baseline load (empty database): ${kevFirst.seconds.toFixed(2)} s, ${kevFirst.value.added} added`);

    const tenant = await app.ctx.services.admin.createTenant({ name: `bench-triage-${Date.now()}`, tier: 'enterprise' });
    const { token } = await app.ctx.services.admin.createToken(tenant.id, { name: 'bench', scopes: TENANT_SCOPES, expiresAt: null });
    log(`[${engine}] seeding ${n(FINDINGS)} findings over ${n(ASSETS)} assets`);
    const seeded = await seedFindings(db, tenant.id, ASSETS, FINDINGS, log);
    const keysStarted = Date.now();
    await seedKeys(db, tenant.id);
    log(`[${engine}] rule keys, sources and CVE tags of the seeded findings in ${((Date.now() - keysStarted) / 1000).toFixed(0)} s`);
    if (engine === 'sqlite') await db.raw('ANALYZE');
    else await db.raw('ANALYZE TABLE findings, finding_keys, finding_cves, finding_sources');
    const asset = (await db('assets').where({ tenant_id: tenant.id }).orderBy('id').first('id')) as { id: string };
    const query = `format=sarif&asset_id=${asset.id}`;
    const prior = await upload(app.server.info.uri, token, query, files.prior);
    log(`[${engine}] seeded in ${seeded.seconds.toFixed(0)} s; prior import of ${n(PRIOR)} results created ${prior.created}`);

    const other = await app.ctx.services.admin.createTenant({ name: `bench-triage-baseline-${Date.now()}`, tier: 'enterprise' });
    const otherAsset = await app.ctx.services.assets.create(other.id, { name: 'baseline.bench.example', type: 'domain' });
    const baseline = await sampled(() => bareInsert(db, other.id, otherAsset.id, RESULTS));
    log(`[${engine}] baseline: bare insert of ${n(RESULTS)} findings in one transaction: ${baseline.seconds.toFixed(2)} s`);

    const first = await sampled(() => upload(app.server.info.uri, token, query, files.sarif));
    log(`[${engine}] import of ${n(RESULTS)} results: ${first.seconds.toFixed(1)} s (${JSON.stringify(first.value)})`);
    const again = await sampled(() => upload(app.server.info.uri, token, query, files.sarif));
    log(`[${engine}] re-import: ${again.seconds.toFixed(1)} s (${JSON.stringify(again.value)})`);
    if (again.value.created !== 0) throw new Error(`re-import created ${again.value.created}`);
    // A third import of the same file, under the CPU profiler: where a re-import's time goes.
    const profile = process.argv.includes('--no-profile') ? null : await profiled(() => upload(app.server.info.uri, token, query, files.sarif));

    const total = Number((await db('findings').where({ tenant_id: tenant.id }).count({ c: '*' }).first())!.c);
    const scan = await sampled(() => plainScan(db, tenant.id, BATCH));
    log(`[${engine}] plain scan of ${n(total)} findings in batches of ${BATCH}: ${scan.seconds.toFixed(1)} s`);
    const tenths: number[] = [];
    let batchPeak = 0;
    const rededup = await sampled(() => rededupFindings(db, { tenantId: tenant.id, batchSize: BATCH, restart: true, onBatch: (p) => {
      // SQLite's client is synchronous: the 20 ms sampler seldom runs during a batch, so every batch samples too.
      batchPeak = Math.max(batchPeak, process.memoryUsage().rss);
      while (tenths.length < 10 && p.findings >= ((tenths.length + 1) * total) / 10) tenths.push(process.memoryUsage().rss);
    } }));
    rededup.rssPeak = Math.max(rededup.rssPeak, batchPeak);
    log(`[${engine}] rededup: ${rededup.seconds.toFixed(1)} s, ${rededup.value.findings} findings, ${rededup.value.keysAdded} keys added, ${rededup.value.merged} merged, peak RSS ${mb(rededup.rssPeak)}`);

    const cves = Number((await db('finding_cves').where({ tenant_id: tenant.id }).countDistinct({ c: 'cve' }).first())!.c);
    const kev = await sampled(() => feeds.load('kev', { kind: 'file', location: 'bench-kev-2.json' }, kevCatalog(KEV, Math.round(KEV / 30))));
    log(`[${engine}] KEV load against the findings: ${kev.seconds.toFixed(2)} s (+${kev.value.added} −${kev.value.removed} ~${kev.value.changed})`);

    const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
    const lines = [
      `Sizes: ${n(FINDINGS)} bulk-seeded findings over ${n(ASSETS)} assets (seeded in ${seeded.seconds.toFixed(0)} s), plus ${n(prior.created ?? 0)} findings from a prior import of ${n(PRIOR)} of the file's results through the real path (they carry fingerprint keys and CVEs; ${n(cves)} distinct CVEs in finding_cves before the KEV load); SARIF file of ${n(RESULTS)} results (${mb(statSync(files.sarif).size)}, 240 rules of which 40 are CVE ids, ${n(RESULTS)} distinct file:line locations), all on one asset; KEV catalog of ${n(KEV)} CVEs in CISA's JSON format, half of them CVEs the imported results name. Load average (1/5/15 min) at the end of the run: ${load()}.`,
      '',
      '| step | seconds | baseline | baseline s | ratio | target | verdict at this size |',
      '|---|---:|---|---:|---:|---|---|',
      `| 1. import of ${n(RESULTS)} SARIF results (POST /api/findings/import over a socket, dedup included): created ${n(first.value.created ?? 0)}, seen again ${n(first.value.seen_again ?? 0)} | ${first.seconds.toFixed(1)} | bare batched insert of ${n(RESULTS)} finding rows in one transaction (no keys, sources, history, counters) | ${baseline.seconds.toFixed(2)} | ${(first.seconds / baseline.seconds).toFixed(1)}× | none given (ratio reported) | — |`,
      `| 2. the same file again: created ${again.value.created}, seen again ${n(again.value.seen_again ?? 0)} | ${again.seconds.toFixed(1)} | the same bare insert | ${baseline.seconds.toFixed(2)} | ${(again.seconds / baseline.seconds).toFixed(1)}× | ≤ 5 s | ${verdict(again.seconds <= 5)} |`,
      `| 3. re-dedup of the tenant's ${n(total)} findings (\`rededupFindings\`, batches of ${BATCH}): ${n(rededup.value.keysAdded)} keys added, ${n(rededup.value.merged)} merged | ${rededup.seconds.toFixed(1)} | plain keyset scan of the same findings, same batch size | ${scan.seconds.toFixed(1)} | ${(rededup.seconds / scan.seconds).toFixed(1)}× | ≤ 300 s, memory flat | ${verdict(rededup.seconds <= 300)} (time); memory: see below |`,
      `| 4. KEV load of ${n(KEV)} CVEs against the findings (\`FeedStore.load\`): +${kev.value.added} −${kev.value.removed} ~${kev.value.changed} | ${kev.seconds.toFixed(2)} | the first load of a catalog of the same size, into the same database before seeding (every CVE added) | ${kevFirst.seconds.toFixed(2)} | ${(kev.seconds / kevFirst.seconds).toFixed(2)}× | none given | — |`,
      '',
      `Re-dedup memory: RSS ${mb(rededup.rssBefore)} before, peak ${mb(rededup.rssPeak)} (+${mb(rededup.rssPeak - rededup.rssBefore)}); at each tenth of the findings: ${tenths.map(mb).join(' → ')}. Import peak RSS +${mb(first.rssPeak - first.rssBefore)}, re-import +${mb(again.rssPeak - again.rssBefore)}.`,
      '',
      'KEV/EPSS enrichment is read-time (the feed facts are looked up by CVE when a finding is read: core/feeds/feed-lookup.ts `kevFor`/`epssFor`; nothing about the feeds is stored on the findings), so a load recomputes nothing: its time is the staging and the swap of the catalog alone, whatever N is. The bulk-seeded findings carry a check id, a dedup key, their source and rule key (as migration 030 left the findings made before the fingerprint tables), and the critical ones (5 %) name a CVE in their tags (CVE-2025-4848…9090, half of them in the KEV catalog): the re-dedup derives and adds those CVE keys; the seeded findings are all of one tool, so only findings of different tools sharing a key on one asset can merge.',
    ];
    if (profile) lines.push('', `Where a re-import's time goes (a third import of the same file, under the V8 CPU profiler; self time of the busy samples; database time spent in SQLite's native code shows under the caller or \`(program)\`):`, '', ...profileTables(profile));
    if (!process.argv.includes('--no-report')) writeReportSection('triage', `${engine}, N = ${n(FINDINGS)}`, lines);
    else log(lines.join('\n'));
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

log(`Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-triage-files-'));
try {
  const files = { sarif: join(dir, 'triage.sarif'), prior: join(dir, 'prior.sarif') };
  await writeParts(files.sarif, triageSarif(RESULTS, 0));
  await writeParts(files.prior, triageSarif(PRIOR, 0));
  if (arg('engine') !== 'mysql' && !(mysqlBase && process.env.DATABASE_URL && !process.argv.includes('--mysql'))) await runEngine('sqlite', files);
  if (mysqlBase && arg('engine') !== 'sqlite') await runEngine('mysql', files);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
