import type { Knex } from 'knex';
import { createTable, idColumn, timeColumn } from '../table-defaults.ts';

/**
 * Manual merges of findings (issue 27 §2; docs/finding-fingerprints.md#merge-and-split).
 * A merge moves the notes, status history and sources of the merged findings to the one
 * kept and deletes them; each row here keeps what is needed to undo it: the merged
 * finding's row and fingerprint keys (`snapshot`), the ids of what moved and the keys the
 * kept finding gained (`moved`). A split restores them and stamps split_at. The rows go
 * with the kept finding (ON DELETE CASCADE).
 */
export const name = '031-finding-merges';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'finding_merges', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'survivor_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    idColumn(t, 'merged_id').notNullable();
    t.text('snapshot', 'mediumtext').notNullable();
    t.text('moved', 'mediumtext').notNullable();
    t.string('merged_by', 40).notNullable();
    timeColumn(t, 'merged_at').notNullable();
    t.string('split_by', 40).nullable();
    timeColumn(t, 'split_at').nullable();
    t.index(['survivor_id', 'id']);
    t.index(['merged_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('finding_merges');
}
