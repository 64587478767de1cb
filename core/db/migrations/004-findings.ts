import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Findings, their notes and their status history. `severity_rank` (critical 4 …
 * info 0) makes "sort by severity" a rank sort and an index range; `cvss_tenths`
 * (score × 10, an integer) makes CVSS filters and sorts exact on both engines.
 */
export const name = '004-findings';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'findings', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    // No foreign key yet: the scans table comes with the scan engine's migration.
    idColumn(t, 'scan_id').nullable();
    t.string('title', 300).notNullable();
    t.text('description', 'mediumtext').notNullable();
    t.text('remediation', 'mediumtext').notNullable();
    t.string('severity', 16).notNullable();
    t.tinyint('severity_rank').notNullable();
    t.smallint('cvss_tenths').notNullable();
    t.string('cvss_vector', 200).notNullable();
    t.string('status', 20).notNullable();
    jsonColumn(t, 'evidence').notNullable();
    jsonColumn(t, 'references').notNullable();
    jsonColumn(t, 'tags').notNullable();
    t.string('updated_by', 40).nullable();
    timeColumn(t, 'discovered_at').notNullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'discovered_at', 'id']);
    t.index(['tenant_id', 'created_at']);
    t.index(['tenant_id', 'status', 'severity_rank', 'id']);
    t.index(['tenant_id', 'severity_rank', 'id']);
    t.index(['tenant_id', 'cvss_tenths', 'id']);
    t.index(['tenant_id', 'title', 'id']);
    t.index(['tenant_id', 'scan_id']);
    t.index(['asset_id', 'status', 'severity_rank', 'cvss_tenths']);
  });

  await createTable(db, 'finding_notes', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    t.string('author', 40).notNullable();
    t.text('text').notNullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['finding_id', 'created_at']);
  });

  await createTable(db, 'finding_status_history', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    // Null on the row written when the finding is created.
    t.string('old_status', 20).nullable();
    t.string('new_status', 20).notNullable();
    t.string('changed_by', 40).nullable();
    idColumn(t, 'note_id').nullable();
    timeColumn(t, 'changed_at').notNullable();
    t.index(['finding_id', 'id']);
    t.index(['tenant_id', 'new_status', 'changed_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['finding_status_history', 'finding_notes', 'findings']) await db.schema.dropTableIfExists(table);
}
