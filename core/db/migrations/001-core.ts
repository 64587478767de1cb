import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/** Tenants, users, API tokens, the event outbox and consumer cursors. */
export const name = '001-core';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'tenants', (t) => {
    idColumn(t, 'id').primary();
    t.string('name', 120).notNullable().unique();
    t.string('tier', 20).notNullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
  });

  await createTable(db, 'users', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('email', 254).notNullable().unique();
    t.string('name', 200).notNullable();
    t.string('password_hash', 255).notNullable();
    jsonColumn(t, 'scopes').notNullable();
    t.boolean('disabled').notNullable().defaultTo(false);
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at']);
  });

  await createTable(db, 'api_tokens', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'user_id').nullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 120).notNullable();
    t.string('kind', 16).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('token_prefix', 16).notNullable();
    jsonColumn(t, 'scopes').notNullable();
    timeColumn(t, 'expires_at').nullable();
    timeColumn(t, 'revoked_at').nullable();
    timeColumn(t, 'last_used_at').nullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['tenant_id', 'created_at']);
  });

  await createTable(db, 'events', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').nullable();
    t.string('kind', 64).notNullable();
    idColumn(t, 'asset_id').nullable();
    jsonColumn(t, 'data').notNullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['tenant_id', 'id']);
    t.index(['created_at']);
  });

  await createTable(db, 'event_cursors', (t) => {
    t.string('consumer', 191).primary();
    t.bigInteger('last_event_id').notNullable().defaultTo(0);
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'updated_at').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['event_cursors', 'events', 'api_tokens', 'users', 'tenants']) {
    await db.schema.dropTableIfExists(table);
  }
}
