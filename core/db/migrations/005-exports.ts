import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Background finding exports. A row is the job (claimed with a lease like every
 * background job) and, once completed, the pointer to its file under the configured
 * export directory. `file_name` is relative to that directory, never a user value.
 */
export const name = '005-exports';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'finding_exports', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('format', 8).notNullable();
    jsonColumn(t, 'filters').notNullable();
    // queued -> running -> completed | failed; completed -> expired (file deleted).
    t.string('status', 16).notNullable();
    t.integer('total_rows').notNullable();
    t.integer('row_count').nullable();
    t.bigInteger('size_bytes').nullable();
    t.string('file_name', 200).nullable();
    t.string('error', 500).nullable();
    idColumn(t, 'requested_by').nullable();
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'completed_at').nullable();
    timeColumn(t, 'expires_at').nullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at']);
    t.index(['status', 'locked_until']);
    t.index(['status', 'expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('finding_exports');
}
