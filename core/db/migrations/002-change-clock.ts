import type { Knex } from 'knex';
import { createTable, idColumn, timeColumn } from '../table-defaults.ts';

/** Per-tenant, per-collection "last changed" times, behind Last-Modified on lists. */
export const name = '002-change-clock';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'change_clock', (t) => {
    idColumn(t, 'tenant_id').notNullable();
    t.string('collection', 64).notNullable();
    timeColumn(t, 'changed_at').notNullable();
    t.primary(['tenant_id', 'collection']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('change_clock');
}
