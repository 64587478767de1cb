import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from '../../core/db/create-db.ts';
import { findingWordRepository } from '../../core/findings/finding-word-repository.ts';
import { seededRandom } from '../../test/_helpers/harness/seeded-random.ts';

const SEVERITIES = [
  // [severity, rank, share, cvss tenths, vector]
  ['critical', 4, 0.05, 98, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'],
  ['high', 3, 0.15, 75, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N'],
  ['medium', 2, 0.3, 61, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'],
  ['low', 1, 0.3, 31, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N'],
  ['info', 0, 0.2, 0, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'],
] as const;
const STATUSES = [['open', 0.5], ['confirmed', 0.1], ['resolved', 0.3], ['false_positive', 0.05], ['accepted_risk', 0.05]] as const;
const DAY = 86_400_000;


function pick<T extends readonly [unknown, ...unknown[]]>(table: readonly T[], shareIndex: number, r: number): T {
  let acc = 0;
  for (const row of table) {
    acc += row[shareIndex] as number;
    if (r < acc) return row;
  }
  return table[table.length - 1]!;
}

/**
 * One multi-row `INSERT … VALUES (…),(…)` per chunk, through knex.raw: knex's own
 * builder turns a multi-row insert into a compound SELECT on SQLite (500 terms at most
 * and slow to compile); plain VALUES lists work on both engines.
 */
async function insertChunks(db: Knex, table: string, rows: Array<Record<string, unknown>>, size: number): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]!);
  const tuple = `(${columns.map(() => '?').join(',')})`;
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    const bindings = chunk.flatMap((r) => columns.map((c) => r[c] as Knex.Value));
    await db.raw(`insert into ?? (${columns.map(() => '??').join(',')}) values ${chunk.map(() => tuple).join(',')}`, [table, ...columns, ...bindings]);
  }
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let pool = randomBytes(0);
let poolAt = 0;

/** Same format as core/ids.ts newId(), with randomness drawn from a large pool (newId's per-call randomBytes dominated seeding time). */
function fastId(prefix: string, ms: number): string {
  if (poolAt + 16 > pool.length) {
    pool = randomBytes(1 << 20);
    poolAt = 0;
  }
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[pool[poolAt++]! & 31];
  return `${prefix}_${time}${rand}`;
}

export interface SeedResult {
  assets: number;
  findings: number;
  historyRows: number;
  seconds: number;
}

/**
 * Bulk-loads `assetCount` assets and `findingCount` findings (plus their status history:
 * a creation entry each, and a move to `resolved` for resolved ones) straight through
 * knex in large multi-row INSERTs inside transactions: no services, no events, no risk
 * recomputation (assets get plausible risk scores directly). Findings are spread over
 * the last 365 days with a realistic severity/status mix.
 */
export async function seedFindings(db: Knex, tenantId: string, assetCount: number, findingCount: number, log: (msg: string) => void): Promise<SeedResult> {
  const started = Date.now();
  const rand = seededRandom(42);
  const now = Date.now();
  const mysql = dialectOf(db) === 'mysql';
  const batch = mysql ? 2000 : 1000; // rows per INSERT (SQLite: at most 32766 bound values)
  const assetIds: string[] = [];
  for (let i = 0; i < assetCount; i += batch) {
    const rows = [];
    for (let j = i; j < Math.min(assetCount, i + batch); j++) {
      const id = fastId('ast', now - DAY * 400 + j);
      assetIds.push(id);
      const name = `host-${j}.bench.example`;
      rows.push({
        id, tenant_id: tenantId, name, name_key: createHash('sha256').update(`domain\0${name}`).digest('hex'), type: 'domain', status: 'active',
        verified: true, risk_score: Math.floor(rand() * 101), open_critical: 2, open_high: 5, open_medium: 10, open_low: 10, open_info: 5,
        tags: '["bench"]', metadata: '{}', search_text: name, created_at: now - DAY * 400 + j, updated_at: now,
      });
    }
    await insertChunks(db, 'assets', rows, batch);
  }
  log(`  ${assetCount} assets`);
  let history = 0;
  // Index pages must stay cached while 1M rows go in, or every insert reads from disk.
  if (!mysql) await db.raw('PRAGMA cache_size = -524288');
  for (let i = 0; i < findingCount; i += batch * 10) {
    await db.transaction(async (trx) => {
      if (mysql) await trx.raw('SET SESSION unique_checks = 0, foreign_key_checks = 0');
      for (let k = i; k < Math.min(findingCount, i + batch * 10); k += batch) {
        const findings = [];
        const changes = [];
        for (let j = k; j < Math.min(findingCount, k + batch); j++) {
          const [severity, rank, , tenths, vector] = pick(SEVERITIES, 2, rand());
          const [status] = pick(STATUSES, 1, rand());
          // Ascending times (with jitter) keep the time-ordered id and discovered_at indexes append-only.
          const discovered = now - 365 * DAY + Math.floor(((j + rand()) * 365 * DAY) / findingCount);
          const id = fastId('fnd', discovered);
          findings.push({
            id, tenant_id: tenantId, asset_id: assetIds[j % assetIds.length], scan_id: null,
            title: `Finding ${j}: ${severity} issue in component ${j % 997}`,
            description: `Synthetic finding ${j} for the benchmark. The service exposes a ${severity} weakness that an attacker could use; see the references for details.`,
            remediation: 'Upgrade the component to the latest release and restrict access to the management interface.',
            severity, severity_rank: rank, cvss_tenths: tenths, cvss_vector: vector, status,
            evidence: '{"url":"https://host.bench.example/login","method":"POST","parameter":"id"}',
            references: '["https://nvd.nist.gov/vuln/detail/CVE-2024-0001"]', tags: '["bench","web"]', updated_by: null,
            discovered_at: discovered, created_at: discovered, updated_at: discovered,
          });
          changes.push({ tenant_id: tenantId, finding_id: id, old_status: null, new_status: 'open', changed_by: null, note_id: null, changed_at: discovered });
          if (status !== 'open') {
            changes.push({ tenant_id: tenantId, finding_id: id, old_status: 'open', new_status: status, changed_by: null, note_id: null, changed_at: Math.min(now, discovered + Math.floor(rand() * 20 * DAY)) });
          }
        }
        await insertChunks(trx, 'findings', findings, batch);
        await insertChunks(trx, 'finding_status_history', changes, batch);
        // MariaDB's search reads its word index (migration 019), which the service writes with each finding.
        if (mysql) await findingWordRepository.add(trx, findings.map((f) => ({ id: f.id, tenantId, title: f.title, description: f.description })));
        history += changes.length;
      }
      if (mysql) await trx.raw('SET SESSION unique_checks = 1, foreign_key_checks = 1');
    });
    if ((i / (batch * 10)) % 10 === 0) log(`  ${Math.min(findingCount, i + batch * 10)} findings (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  if (!mysql) await db.raw('PRAGMA cache_size = -2000');
  return { assets: assetCount, findings: findingCount, historyRows: history, seconds: (Date.now() - started) / 1000 };
}
