import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Assets and their tags. Later tables that belong to an asset (findings, scans,
 * schedules) reference `assets.id` with ON DELETE CASCADE, so deleting the asset row
 * removes them in the same statement on both engines.
 */
export const name = '003-assets';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'assets', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 2048).notNullable();
    // sha256(type + NUL + name): the uniqueness key, because a 2048-character name is
    // over MariaDB's 3072-byte index limit.
    t.string('name_key', 64).notNullable();
    t.string('type', 16).notNullable();
    t.string('status', 32).notNullable();
    t.boolean('verified').notNullable().defaultTo(false);
    t.integer('risk_score').notNullable().defaultTo(0);
    t.integer('open_critical').notNullable().defaultTo(0);
    t.integer('open_high').notNullable().defaultTo(0);
    t.integer('open_medium').notNullable().defaultTo(0);
    t.integer('open_low').notNullable().defaultTo(0);
    t.integer('open_info').notNullable().defaultTo(0);
    jsonColumn(t, 'tags').notNullable();
    jsonColumn(t, 'metadata').notNullable();
    // Lower-cased name + metadata keys and values, for `search`.
    t.text('search_text', 'mediumtext').notNullable();
    t.string('verification_token', 80).nullable();
    timeColumn(t, 'verification_issued_at').nullable();
    t.string('verification_method', 16).nullable();
    timeColumn(t, 'verified_at').nullable();
    timeColumn(t, 'last_scan').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.unique(['tenant_id', 'name_key']);
    t.index(['tenant_id', 'created_at', 'id']);
    t.index(['tenant_id', 'risk_score', 'id']);
    t.index(['tenant_id', 'type', 'created_at']);
  });

  await createTable(db, 'asset_tags', (t) => {
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('tag', 64).notNullable();
    t.primary(['asset_id', 'tag']);
    t.index(['tenant_id', 'tag']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('asset_tags');
  await db.schema.dropTableIfExists('assets');
}
