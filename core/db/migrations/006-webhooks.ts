import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Webhooks, their deliveries (one per event and webhook, carrying the due time of its
 * next attempt and the lease of the worker sending it) and every attempt made. Secrets
 * and custom headers are stored sealed (core/secrets/secret-box.ts), never in clear.
 */
export const name = '006-webhooks';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'webhooks', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('url', 2048).notNullable();
    jsonColumn(t, 'events').notNullable();
    jsonColumn(t, 'filters').notNullable();
    t.string('transform', 32).nullable();
    jsonColumn(t, 'transform_options').notNullable();
    t.text('secret_sealed').nullable();
    // The secret replaced by a rotation, still used to sign until it expires.
    t.text('previous_secret_sealed').nullable();
    timeColumn(t, 'previous_secret_expires_at').nullable();
    t.text('headers_sealed').nullable();
    jsonColumn(t, 'header_names').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.string('disabled_reason', 64).nullable();
    timeColumn(t, 'disabled_at').nullable();
    // Start of the current run of failed attempts (null after a success): drives auto-disable.
    timeColumn(t, 'failing_since').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at', 'id']);
    t.index(['tenant_id', 'active']);
  });

  await createTable(db, 'webhook_deliveries', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.bigInteger('event_id').notNullable();
    t.string('event_kind', 64).notNullable();
    // The JSON body before any transform, frozen when the delivery is created, so a
    // retry (or a recover days later, after the outbox was pruned) sends the same event.
    jsonColumn(t, 'payload').notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.integer('attempts_left').notNullable();
    timeColumn(t, 'next_attempt_at').nullable();
    t.string('locked_by', 100).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    t.integer('last_response_code').nullable();
    t.integer('last_duration_ms').nullable();
    t.string('last_error', 300).nullable();
    timeColumn(t, 'last_attempt_at').nullable();
    timeColumn(t, 'delivered_at').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.unique(['webhook_id', 'event_id']);
    t.index(['status', 'next_attempt_at']);
    t.index(['webhook_id', 'created_at', 'id']);
    t.index(['webhook_id', 'status', 'created_at']);
  });

  await createTable(db, 'webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('attempt_number').notNullable();
    t.string('outcome', 16).notNullable();
    t.integer('response_code').nullable();
    t.integer('duration_ms').notNullable();
    t.string('error_code', 32).nullable();
    t.string('error_message', 300).nullable();
    t.text('response_body').nullable();
    timeColumn(t, 'attempted_at').notNullable();
    t.index(['delivery_id', 'attempt_number']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks']) await db.schema.dropTableIfExists(table);
}
