import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * SIEM integrations (syslog forwarding). Each one reads the events table through its
 * own durable cursor in `event_cursors` (consumer `siem:<id>`), so no queue table is
 * needed: undelivered events are simply the events after the cursor.
 */
export const name = '007-siem';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'siem_integrations', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable();
    t.string('name', 200).notNullable();
    t.string('type', 16).notNullable();
    t.string('protocol', 16).notNullable();
    t.string('host', 255).notNullable();
    t.integer('port').notNullable();
    t.string('format', 32).notNullable();
    jsonColumn(t, 'events').notNullable();
    t.integer('facility').notNullable();
    t.boolean('active').notNullable();
    // Public certificates are stored as given; the client key is sealed (core/secrets/secret-box.ts).
    t.text('tls_ca', 'longtext').nullable();
    t.text('tls_cert', 'longtext').nullable();
    t.text('tls_key_sealed', 'longtext').nullable();
    t.string('tls_server_name', 255).nullable();
    t.boolean('tls_verify').notNullable();
    t.text('last_error').nullable();
    timeColumn(t, 'last_error_at').nullable();
    timeColumn(t, 'last_sent_at').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('siem_integrations');
}
