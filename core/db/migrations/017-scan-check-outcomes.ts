import type { Knex } from 'knex';
import { jsonColumn } from '../table-defaults.ts';

/**
 * What a scan says about its checks: how many failed (so a list shows a partial scan
 * without reading every check row) and, per check, the warnings it wrote (pages it could
 * not fetch, a request budget it used up), so no part of a scan is lost silently.
 */
export const name = '017-scan-check-outcomes';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('scans', (t) => {
    t.integer('checks_failed').notNullable().defaultTo(0);
  });
  await db.schema.alterTable('scan_checks', (t) => {
    jsonColumn(t, 'warnings').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('scan_checks', (t) => {
    t.dropColumn('warnings');
  });
  await db.schema.alterTable('scans', (t) => {
    t.dropColumn('checks_failed');
  });
}
