import type { Knex } from 'knex';
import { createTable, idColumn, timeColumn } from '../table-defaults.ts';

/**
 * The cursor of `rampart admin findings rededup` (core/findings/finding-rededup.ts): one row
 * per scope (`*` for every tenant, or a tenant id), written in the same transaction as each
 * batch, so a run killed at any point resumes after the last batch that committed.
 */
export const name = '032-finding-rededup';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'finding_rededup_progress', (t) => {
    t.string('scope', 40).primary();
    idColumn(t, 'after_id').notNullable();
    t.bigInteger('findings').notNullable().defaultTo(0);
    t.bigInteger('keys_added').notNullable().defaultTo(0);
    t.bigInteger('merged').notNullable().defaultTo(0);
    timeColumn(t, 'started_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    timeColumn(t, 'done_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('finding_rededup_progress');
}
