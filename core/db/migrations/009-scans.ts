import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * The scan engine: scans (each row is also its queue entry, with a lease), the checks
 * planned for a scan (resumable: a completed check is never run again), the link of a
 * scan to every finding it saw, measured check durations (ETA), schedules (the last
 * claimed cron tick makes a tick run once across processes) and callback deliveries.
 * Findings gain the dedup key (asset, check id, location) and `last_seen`.
 */
export const name = '009-scans';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'scans', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    // asset_id while queued or running, null once finished: the unique index makes
    // "one active scan per asset" hold under concurrent creates on both engines.
    idColumn(t, 'active_asset_id').nullable().unique();
    t.string('scan_type', 16).notNullable();
    t.string('status', 16).notNullable();
    t.string('priority', 8).notNullable();
    t.tinyint('priority_rank').notNullable();
    jsonColumn(t, 'options').notNullable();
    t.string('callback_url', 2048).nullable();
    t.text('callback_secret_sealed').nullable();
    idColumn(t, 'schedule_id').nullable();
    t.integer('progress').notNullable().defaultTo(0);
    t.string('current_phase', 120).nullable();
    t.integer('eta_seconds').nullable();
    t.integer('estimated_seconds').nullable();
    t.integer('checks_total').notNullable().defaultTo(0);
    t.integer('checks_done').notNullable().defaultTo(0);
    t.integer('finding_count').notNullable().defaultTo(0);
    jsonColumn(t, 'finding_summary').notNullable();
    t.string('error', 500).nullable();
    t.integer('claims').notNullable().defaultTo(0);
    t.string('locked_by', 80).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'deadline_at').nullable();
    timeColumn(t, 'progress_emitted_at').notNullable().defaultTo(0);
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'completed_at').nullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['status', 'priority_rank', 'created_at']);
    t.index(['status', 'locked_until']);
    t.index(['tenant_id', 'created_at', 'id']);
    t.index(['tenant_id', 'asset_id', 'created_at']);
  });

  await createTable(db, 'scan_checks', (t) => {
    idColumn(t, 'scan_id').notNullable().references('id').inTable('scans').onDelete('CASCADE');
    t.string('check_id', 130).notNullable();
    t.integer('seq').notNullable();
    t.string('plugin', 64).notNullable();
    t.string('category', 64).notNullable();
    // pending -> completed | error | timeout | cancelled
    t.string('status', 16).notNullable();
    t.string('error', 500).nullable();
    t.integer('duration_ms').nullable();
    t.integer('finding_count').notNullable().defaultTo(0);
    timeColumn(t, 'completed_at').nullable();
    t.primary(['scan_id', 'check_id']);
  });

  await createTable(db, 'scan_findings', (t) => {
    idColumn(t, 'scan_id').notNullable().references('id').inTable('scans').onDelete('CASCADE');
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    t.primary(['scan_id', 'finding_id']);
    t.index(['finding_id']);
  });

  await createTable(db, 'check_stats', (t) => {
    t.string('check_id', 130).primary();
    t.integer('samples').notNullable();
    t.integer('avg_ms').notNullable();
    timeColumn(t, 'updated_at').notNullable();
  });

  await createTable(db, 'scan_schedules', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    t.string('name', 200).nullable();
    t.string('cron', 120).notNullable();
    t.string('timezone', 64).notNullable();
    t.string('scan_type', 16).notNullable();
    t.string('priority', 8).notNullable();
    jsonColumn(t, 'options').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    // The cron tick (epoch ms, whole minute or second) last claimed: a conditional
    // UPDATE moving it forward is how one process, and only one, runs a tick.
    timeColumn(t, 'last_tick_at').nullable();
    idColumn(t, 'last_scan_id').nullable();
    t.string('last_outcome', 200).nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at', 'id']);
    t.index(['enabled']);
  });

  await createTable(db, 'scan_callbacks', (t) => {
    idColumn(t, 'scan_id').primary().references('id').inTable('scans').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('url', 2048).notNullable();
    t.text('secret_sealed').nullable();
    jsonColumn(t, 'payload').notNullable();
    // pending -> delivered | failed
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    timeColumn(t, 'next_attempt_at').notNullable();
    t.string('locked_by', 80).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    t.integer('response_code').nullable();
    t.string('last_error', 300).nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['status', 'next_attempt_at']);
  });

  await db.schema.alterTable('findings', (t) => {
    // sha256(check id NUL location) for findings a scan reported; null for imported ones.
    t.string('dedup_key', 64).nullable();
    t.string('check_id', 130).nullable();
    timeColumn(t, 'last_seen').nullable();
    t.unique(['asset_id', 'dedup_key']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('findings', (t) => {
    t.dropUnique(['asset_id', 'dedup_key']);
    t.dropColumn('dedup_key');
    t.dropColumn('check_id');
    t.dropColumn('last_seen');
  });
  for (const table of ['scan_callbacks', 'scan_schedules', 'check_stats', 'scan_findings', 'scan_checks', 'scans']) await db.schema.dropTableIfExists(table);
}
