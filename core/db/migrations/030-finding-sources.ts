import type { Knex } from 'knex';
import { dialectOf } from '../create-db.ts';
import { createTable, idColumn, timeColumn } from '../table-defaults.ts';

/**
 * Cross-tool deduplication (issue 27 §2; docs/finding-fingerprints.md).
 *
 * `finding_sources`: each tool rule (a scanner check, a nuclei template, a SARIF rule, a ZAP
 * alert) that reported a finding, at one place: first and last seen, the scan or import
 * that saw it first and last, and — for every source but the one that created the finding
 * — the fingerprint keys that made it join. `finding_keys`: the finding's fingerprint, one
 * row per key (the rule key, each CVE, each CWE at a location), looked up by (asset, key
 * hash). `finding_cves`: the CVE ids of a finding, indexed by CVE for the KEV/EPSS join.
 * All three go with their finding by ON DELETE CASCADE.
 *
 * Filled here for the findings already holding a dedup key (one source and one rule key
 * each); their CVE and CWE keys come with `rampart admin findings rededup`.
 */
export const name = '030-finding-sources';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'finding_sources', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    // sha256(rule id NUL location): the same value as findings.dedup_key for the source that created it.
    t.string('rule_key', 64).notNullable();
    // The tool's own id of what it found: `web_app:exposed-files`, `nuclei:laravel-env`, `sarif:Semgrep:rule`, `zap:10055-4`.
    t.string('rule_id', 130).notNullable();
    t.string('location', 500).notNullable();
    // `scan:<id>`, `import:<format>`, `api`.
    t.string('first_origin', 80).notNullable();
    t.string('last_origin', 80).notNullable();
    timeColumn(t, 'first_seen').notNullable();
    timeColumn(t, 'last_seen').notNullable();
    // JSON [{kind, value}]: the keys this source shared with the finding when it joined; null for the creating source.
    t.text('matched_on').nullable();
    t.unique(['finding_id', 'rule_key']);
  });
  await createTable(db, 'finding_keys', (t) => {
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'asset_id').notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('key_hash', 64).notNullable();
    t.string('value', 500).notNullable();
    t.primary(['finding_id', 'key_hash']);
    t.index(['asset_id', 'key_hash']);
  });
  await createTable(db, 'finding_cves', (t) => {
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    t.string('cve', 32).notNullable();
    t.primary(['finding_id', 'cve']);
    t.index(['cve', 'tenant_id']);
  });

  await db.raw(`insert into finding_sources (tenant_id, finding_id, rule_key, rule_id, location, first_origin, last_origin, first_seen, last_seen, matched_on)
    select tenant_id, id, dedup_key, coalesce(check_id, ''), '',
      case when scan_id is null then 'import' else ${concat(db, "'scan:'", 'scan_id')} end,
      case when scan_id is null then 'import' else ${concat(db, "'scan:'", 'scan_id')} end,
      created_at, coalesce(last_seen, created_at), null
    from findings where dedup_key is not null`);
  await db.raw(`insert into finding_keys (tenant_id, asset_id, finding_id, kind, key_hash, value)
    select tenant_id, asset_id, id, 'rule', dedup_key, coalesce(check_id, '') from findings where dedup_key is not null`);
}

function concat(db: Knex, a: string, b: string): string {
  return dialectOf(db) === 'mysql' ? `concat(${a}, ${b})` : `${a} || ${b}`;
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['finding_cves', 'finding_keys', 'finding_sources']) await db.schema.dropTableIfExists(table);
}
