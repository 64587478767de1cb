import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Scan callbacks become deliveries of the webhook delivery queue (issue 26 §1), so one
 * queue signs, retries and records attempts. A delivery targets a webhook (`webhook_id`)
 * or a scan's callback (`scan_id`, with the callback URL and the scan's sealed callback
 * secret copied at the scan's finish, as `scan_callbacks` held them); `webhook_id` becomes
 * nullable for the latter. Every `scan_callbacks` row moves over (pending ones keep their
 * due time and attempt count), then the table goes; `down` moves them back.
 *
 * Not in a transaction: SQLite changes a column's nullability by rebuilding the table,
 * and only outside a transaction can knex turn foreign keys off for it (inside one, the
 * old table's DROP would cascade to every webhook attempt). MariaDB commits DDL at once
 * anyway.
 */
export const name = '020-scan-callback-deliveries';
export const config = { transaction: false };

interface CallbackRow {
  scan_id: string;
  tenant_id: string;
  url: string;
  secret_sealed: string | null;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: number | string;
  response_code: number | null;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const BATCH = 200;

/** The event a stored callback body announces (`scan.completed` or `scan.failed`). */
function eventOf(payload: string): string {
  try {
    const event = (JSON.parse(payload) as { event?: unknown }).event;
    return typeof event === 'string' ? event.slice(0, 64) : 'scan.completed';
  } catch {
    return 'scan.completed';
  }
}

function deliveryOf(c: CallbackRow): Record<string, unknown> {
  const attempts = Number(c.attempts);
  const waiting = c.status === 'pending';
  return {
    // One callback per scan: its id is derived from the scan's, so running this twice adds nothing twice.
    id: `dlv_cb_${c.scan_id}`.slice(0, 40), tenant_id: c.tenant_id, webhook_id: null, scan_id: c.scan_id, target_url: c.url, secret_sealed: c.secret_sealed,
    event_id: 0, event_kind: eventOf(c.payload), payload: c.payload,
    status: waiting ? (attempts > 0 ? 'retried' : 'pending') : c.status, attempt_count: attempts, attempts_left: waiting ? 1 : 0,
    next_attempt_at: waiting ? c.next_attempt_at : null, locked_by: null, locked_until: 0,
    last_response_code: c.response_code, last_error: c.last_error, last_attempt_at: attempts > 0 ? c.updated_at : null,
    delivered_at: c.status === 'delivered' ? c.updated_at : null, created_at: c.created_at, updated_at: c.updated_at,
  };
}

export async function up(db: Knex): Promise<void> {
  // Each step checks whether it is done, so a run cut short (no transaction) can run again.
  if (!(await db.schema.hasColumn('webhook_deliveries', 'scan_id'))) {
    await db.schema.alterTable('webhook_deliveries', (t) => {
      idColumn(t, 'webhook_id').nullable().alter();
    });
    await db.schema.alterTable('webhook_deliveries', (t) => {
      idColumn(t, 'scan_id').nullable().references('id').inTable('scans').onDelete('CASCADE');
      t.string('target_url', 2048).nullable();
      t.text('secret_sealed').nullable();
      t.unique(['scan_id']);
    });
  }
  if (!(await db.schema.hasTable('scan_callbacks'))) return;
  await db.transaction(async (trx) => {
    let after = '';
    for (;;) {
      const rows = (await trx('scan_callbacks').where('scan_id', '>', after).orderBy('scan_id').limit(BATCH)) as CallbackRow[];
      if (!rows.length) break;
      await trx('webhook_deliveries').insert(rows.map(deliveryOf)).onConflict(['scan_id']).ignore();
      after = rows[rows.length - 1]!.scan_id;
    }
  });
  await db.schema.dropTable('scan_callbacks');
}

export async function down(db: Knex): Promise<void> {
  await createTable(db, 'scan_callbacks', (t) => {
    idColumn(t, 'scan_id').primary().references('id').inTable('scans').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('url', 2048).notNullable();
    t.text('secret_sealed').nullable();
    jsonColumn(t, 'payload').notNullable();
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
  await db.transaction(async (trx) => {
    let after = '';
    for (;;) {
      const rows = (await trx('webhook_deliveries').whereNotNull('scan_id').where('id', '>', after).orderBy('id').limit(BATCH)) as Array<Record<string, unknown> & { id: string }>;
      if (!rows.length) break;
      await trx('scan_callbacks').insert(rows.map((d) => ({
        scan_id: d.scan_id, tenant_id: d.tenant_id, url: d.target_url, secret_sealed: d.secret_sealed, payload: d.payload,
        status: d.status === 'retried' ? 'pending' : d.status, attempts: d.attempt_count, next_attempt_at: d.next_attempt_at ?? d.updated_at,
        locked_by: null, locked_until: 0, response_code: d.last_response_code, last_error: d.last_error, created_at: d.created_at, updated_at: d.updated_at,
      })));
      after = rows[rows.length - 1]!.id;
    }
    await trx('webhook_deliveries').whereNotNull('scan_id').delete();
  });
  await db.schema.alterTable('webhook_deliveries', (t) => {
    t.dropForeign(['scan_id']);
  });
  await db.schema.alterTable('webhook_deliveries', (t) => {
    t.dropUnique(['scan_id']);
  });
  await db.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('scan_id');
    t.dropColumn('target_url');
    t.dropColumn('secret_sealed');
  });
  await db.schema.alterTable('webhook_deliveries', (t) => {
    idColumn(t, 'webhook_id').notNullable().alter();
  });
}
