import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'undici';
import type { Knex } from 'knex';
import { Session } from 'node:inspector/promises';
import { dialectOf } from '../../core/db/create-db.ts';
import type { CpuProfile } from './cpu-profile.ts';

/** Rules of the generated SARIF: 200 code rules (a CWE each) and 40 named after a CVE (a dependency scanner's). */
export const CVE_RULES = Array.from({ length: 40 }, (_, i) => `CVE-2024-${21000 + i}`);

/** Writes a document part by part without holding it. */
export async function writeParts(file: string, parts: Iterable<string>): Promise<void> {
  const out = createWriteStream(file);
  for (const part of parts) if (!out.write(part)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/**
 * A SARIF 2.1.0 log of `n` results, shaped like CodeQL's: result i is the same in every
 * file, so a file of fewer results is a prefix of a larger one (its results are "already
 * known" when the larger one is imported). One in six results is of a CVE rule.
 */
export function* triageSarif(n: number, offset: number): Generator<string> {
  const code = Array.from({ length: 200 }, (_, r) => ({ id: `js/bench-rule-${r}`, name: `bench/rule-${r}`, shortDescription: { text: `Benchmark rule ${r}` }, fullDescription: { text: 'A rule of the benchmark, with a description as long as a real one. '.repeat(3) }, help: { text: 'Fix it the way the rule says.' }, defaultConfiguration: { level: ['error', 'warning', 'note'][r % 3] }, properties: { tags: ['security', `external/cwe/cwe-${79 + (r % 10)}`], 'security-severity': String((r % 100) / 10) } }));
  const cves = CVE_RULES.map((id) => ({ id, shortDescription: { text: `${id} in a dependency` }, helpUri: `https://nvd.nist.gov/vuln/detail/${id}`, defaultConfiguration: { level: 'error' }, properties: { tags: ['security', 'dependency'], 'security-severity': '8.1' } }));
  const rules = [...code, ...cves];
  yield `{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{"tool":{"driver":${JSON.stringify({ name: 'BenchSAST', version: '1.0.0', rules })}},"results":[\n`;
  for (let k = 0; k < n; k++) {
    const i = k + offset;
    const r = i % 6 === 5 ? 200 + (i % 40) : i % 200;
    yield `${k ? ',' : ''}${JSON.stringify({ ruleId: rules[r]!.id, ruleIndex: r, message: { text: `Tainted value reaches sink number ${i}.` }, locations: [{ physicalLocation: { artifactLocation: { uri: `src/module-${i % 1000}/file-${i}.js`, uriBaseId: '%SRCROOT%' }, region: { startLine: 1 + (i % 400), startColumn: 5, endColumn: 40, snippet: { text: '  const value = request.query.value;' } } } }], partialFingerprints: { primaryLocationLineHash: `${i.toString(16)}:1` } })}\n`;
  }
  yield ']}]}\n';
}

/**
 * A KEV catalog in CISA's JSON format: the 40 CVEs the SARIF's rules name, the CVEs the
 * seeded findings name (CVE-2025-4848…9090, see seedKeys), then filler. `shift` drops the
 * first few and appends as many new ones (a later catalog: added, removed, the rest kept).
 */
export async function* kevCatalog(count: number, shift: number): AsyncGenerator<Buffer> {
  const seeded: string[] = [];
  for (const a of [...'0123456789ABCDEFGHJKMNPQRSTVWXYZ']) for (const b of [...'0123456789ABCDEFGHJKMNPQRSTVWXYZ']) seeded.push(`CVE-2025-${a.charCodeAt(0) * 100 + b.charCodeAt(0)}`);
  const all = [...CVE_RULES, ...seeded.filter((_, i) => i % 2 === 0)];
  for (let i = 0; all.length < count + shift; i++) all.push(`CVE-2023-${30000 + i}`);
  const ids = all.slice(shift, shift + count);
  const entry = (cve: string) => ({ cveID: cve, vendorProject: 'Bench', product: 'Component', vulnerabilityName: `Bench Component vulnerability ${cve}`, dateAdded: '2026-06-01', shortDescription: 'A vulnerability of the benchmark, described at the length of a real catalog entry so the feed weighs what the real one does.', requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.', dueDate: '2026-06-22', knownRansomwareCampaignUse: 'Unknown', notes: `https://nvd.nist.gov/vuln/detail/${cve}`, cwes: ['CWE-787'] });
  yield Buffer.from(`{"title":"CISA Catalog of Known Exploited Vulnerabilities","catalogVersion":"2026.06.${shift ? 16 : 15}","dateReleased":"2026-06-${shift ? 16 : 15}T19:00:14.5797Z","count":${ids.length},"vulnerabilities":[`);
  for (let i = 0; i < ids.length; i += 100) yield Buffer.from(ids.slice(i, i + 100).map((c, j) => `${i + j ? ',' : ''}${JSON.stringify(entry(c))}`).join(''));
  yield Buffer.from(']}');
}

/**
 * Gives the bulk-seeded findings what findings made before the fingerprint tables carried:
 * a check id and a dedup key (here a unique stand-in), their source and rule key as
 * migration 030 filled them — and names a CVE (tags) on the critical ones, so the re-dedup
 * has CVE keys to derive. Bench seeding only: plain SQL, no product code path.
 */
export async function seedKeys(db: Knex, tenantId: string): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  const cat = (...parts: string[]) => (mysql ? `concat(${parts.join(', ')})` : parts.join(' || '));
  const code = mysql ? 'ascii' : 'unicode';
  await db.raw(`update findings set check_id = ${cat("'bench:check-'", 'substr(id, -5)')}, dedup_key = substr(${cat('id', 'id', 'id')}, 1, 64) where tenant_id = ? and dedup_key is null`, [tenantId]);
  await db.raw(`update findings set tags = ${cat(`'["bench","web","CVE-2025-'`, `cast(${code}(substr(id, -1, 1)) * 100 + ${code}(substr(id, -2, 1)) as char)`, `'"]'`)} where tenant_id = ? and severity_rank = 4`, [tenantId]);
  await db.raw(`insert into finding_sources (tenant_id, finding_id, rule_key, rule_id, location, first_origin, last_origin, first_seen, last_seen, matched_on)
    select tenant_id, id, dedup_key, check_id, '', 'import', 'import', created_at, created_at, null from findings where tenant_id = ? and dedup_key is not null`, [tenantId]);
  await db.raw(`insert into finding_keys (tenant_id, asset_id, finding_id, kind, key_hash, value)
    select tenant_id, asset_id, id, 'rule', dedup_key, check_id from findings where tenant_id = ? and dedup_key is not null`, [tenantId]);
}

/** The import baseline: `count` finding rows (as seeded) in one transaction of 500-row INSERTs; nothing else. */
export async function bareInsert(db: Knex, tenantId: string, assetId: string, count: number): Promise<number> {
  const now = Date.now();
  await db.transaction(async (trx) => {
    for (let i = 0; i < count; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(count, i + 500); j++) {
        rows.push({ id: `fnd_BASE${String(j).padStart(22, '0')}`, tenant_id: tenantId, asset_id: assetId, scan_id: null, title: `Baseline ${j}: tainted value reaches a sink`, description: `Tainted value reaches sink number ${j}.`, remediation: 'Fix it the way the rule says.', severity: 'high', severity_rank: 3, cvss_tenths: 75, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', status: 'open', evidence: `{"file":"src/module-${j % 1000}/file-${j}.js","line":${1 + (j % 400)}}`, references: '[]', tags: '["security"]', updated_by: null, dedup_key: `base${String(j).padStart(60, '0')}`, check_id: 'sarif:BenchSAST:js/bench-rule-1', discovered_at: now, created_at: now, updated_at: now });
      }
      await trx('findings').insert(rows);
    }
  });
  return count;
}

/** The rededup baseline: the tenant's findings read in id order, `size` at a time, the columns the rededup reads. */
export async function plainScan(db: Knex, tenantId: string, size: number): Promise<number> {
  let after = '';
  let rows = 0;
  for (;;) {
    const batch = (await db('findings').where('tenant_id', tenantId).where('id', '>', after).whereNotNull('dedup_key').orderBy('id').limit(size).select('id', 'tenant_id', 'asset_id', 'dedup_key', 'check_id', 'evidence', 'tags')) as Array<{ id: string }>;
    rows += batch.length;
    if (batch.length < size) return rows;
    after = batch[batch.length - 1]!.id;
  }
}

/** Runs `work`, sampling RSS every 20 ms. */
export async function sampled<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; rssBefore: number; rssPeak: number }> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  try {
    const value = await work();
    return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9, rssBefore, rssPeak: Math.max(rssPeak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

/** POST /api/findings/import over a real socket, as bench/imports.ts does. */
export async function upload(base: string, token: string, query: string, file: string): Promise<Record<string, number>> {
  const res = await request(`${base}/api/findings/import?${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(statSync(file).size) }, body: createReadStream(file), headersTimeout: 0, bodyTimeout: 0 });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`import answered ${res.statusCode}: ${text.slice(0, 400)}`);
  return (JSON.parse(text) as { data: Record<string, number> }).data;
}

/** Runs `work` under the V8 CPU profiler (the inspector's), for the report's profile tables. */
export async function profiled(work: () => Promise<unknown>): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await work();
    return (await session.post('Profiler.stop')).profile as unknown as CpuProfile;
  } finally {
    session.disconnect();
  }
}
