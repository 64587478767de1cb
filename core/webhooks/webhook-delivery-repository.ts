import type { Knex } from 'knex';
import type { Queryable } from '../db/create-db.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type { DeliveryStatus } from './delivery-status.ts';
import { insertBatched } from '../db/insert-batches.ts';

export const SENDABLE: DeliveryStatus[] = ['pending', 'retried'];

export interface DeliveryRow {
  id: string;
  tenant_id: string;
  /** The webhook this delivery goes to; null for a scan callback. */
  webhook_id: string | null;
  /** The scan whose callback this delivery is (with its URL and sealed secret); null for a webhook's. */
  scan_id: string | null;
  target_url: string | null;
  secret_sealed: string | null;
  event_id: number | string;
  event_kind: string;
  payload: string;
  status: DeliveryStatus;
  attempt_count: number;
  attempts_left: number;
  next_attempt_at: number | string | null;
  locked_by: string | null;
  locked_until: number | string;
  last_response_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_attempt_at: number | string | null;
  delivered_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

export interface AttemptRow {
  id: number | string;
  delivery_id: string;
  attempt_number: number;
  outcome: 'success' | 'failure';
  response_code: number | null;
  duration_ms: number;
  error_code: string | null;
  error_message: string | null;
  response_body: string | null;
  attempted_at: number | string;
}

export interface NewDelivery {
  id: string;
  tenantId: string;
  webhookId: string;
  eventId: number;
  eventKind: string;
  payload: string;
  attemptsLeft: number;
  now: number;
  /** Pre-leased (the test call sends it itself); otherwise any worker may claim it. */
  lease?: { token: string; until: number };
}

/** A finished scan's callback: its final summary, to its callback_url, signed with its secret. */
export interface NewCallbackDelivery {
  id: string;
  tenantId: string;
  scanId: string;
  url: string;
  secretSealed: string | null;
  eventKind: string;
  payload: string;
  /** The callback schedule's length + 1 (informational: the schedule decides at each attempt). */
  attemptsLeft: number;
  now: number;
}

export interface NewAttempt {
  tenantId: string;
  deliveryId: string;
  attemptNumber: number;
  outcome: 'success' | 'failure';
  responseCode: number | null;
  durationMs: number;
  errorCode: string | null;
  errorMessage: string | null;
  responseBody: string | null;
  attemptedAt: number;
}

/** A delivery is sendable for an active webhook, or as a scan callback (no webhook to disable it). */
const sendableTarget = (q: Knex.QueryBuilder, db: Queryable) =>
  void q.where((t) => t.whereIn('webhook_id', db('webhooks').select('id').where({ active: true })).orWhereNotNull('scan_id'));

/** Sendable deliveries of active webhooks and scan callbacks, by due time; a retry is the same row with a later due time. */
const deliveryQueue = new LeaseQueue({
  table: 'webhook_deliveries',
  ready: { status: SENDABLE },
  readyWhere: sendableTarget,
  dueColumn: 'next_attempt_at',
  order: [{ column: 'next_attempt_at', order: 'asc' }],
});

export const webhookDeliveryRepository = {
  /** Idempotent per (webhook, event): a batch handled twice creates nothing twice. */
  async insertMany(db: Queryable, deliveries: NewDelivery[]): Promise<void> {
    const rows = deliveries.map((d) => ({
      id: d.id, tenant_id: d.tenantId, webhook_id: d.webhookId, event_id: d.eventId, event_kind: d.eventKind, payload: d.payload,
      status: 'pending', attempt_count: 0, attempts_left: d.attemptsLeft, next_attempt_at: d.now,
      locked_by: d.lease?.token ?? null, locked_until: d.lease?.until ?? 0,
      created_at: d.now, updated_at: d.now,
    }));
    await insertBatched(db, 'webhook_deliveries', rows, (batch) => db('webhook_deliveries').insert(batch).onConflict(['webhook_id', 'event_id']).ignore());
  },

  /** A scan callback's delivery, written in the scan's finishing transaction; one per scan. */
  async insertCallback(db: Queryable, c: NewCallbackDelivery): Promise<void> {
    await db('webhook_deliveries').insert({
      id: c.id, tenant_id: c.tenantId, webhook_id: null, scan_id: c.scanId, target_url: c.url, secret_sealed: c.secretSealed,
      event_id: 0, event_kind: c.eventKind, payload: c.payload, status: 'pending', attempt_count: 0, attempts_left: c.attemptsLeft,
      next_attempt_at: c.now, locked_by: null, locked_until: 0, created_at: c.now, updated_at: c.now,
    });
  },

  /** Leases up to `limit` due deliveries of active webhooks to `token` (unique per claim); returns them. */
  async claimDue(db: Queryable, token: string, now: number, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
    const ids = await deliveryQueue.claim(db, { token, now, leaseMs, limit });
    if (!ids.length) return [];
    // Read back by primary key (a lookup by token alone would scan the table), still only rows this claim holds.
    const rows: DeliveryRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      rows.push(...((await db('webhook_deliveries').whereIn('id', ids.slice(i, i + 500)).where({ locked_by: token }).where('locked_until', '>', now)) as DeliveryRow[]));
    }
    return rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at));
  },

  async leasedTo(db: Queryable, token: string): Promise<DeliveryRow[]> {
    return (await db('webhook_deliveries').where({ locked_by: token })) as DeliveryRow[];
  },

  /** Writes the outcome of an attempt if the lease is still ours; false when it was lost. */
  async finishAttempt(db: Queryable, id: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return deliveryQueue.finish(db, id, token, changes);
  },

  /** Gives a leased delivery back without spending an attempt (shutdown). */
  async release(db: Queryable, id: string, token: string): Promise<boolean> {
    return deliveryQueue.release(db, id, token);
  },

  /**
   * Gives back many rows of one claim that were never sent (shutdown, a lease too short
   * to start them): the same guarded write as `release`, one statement per 500 rows.
   */
  async releaseMany(db: Queryable, ids: string[], token: string): Promise<number> {
    return deliveryQueue.releaseMany(db, ids, token);
  },

  /** Earliest due time among sendable deliveries (for the worker's sleep). */
  async nextDueAt(db: Queryable, now: number): Promise<number | null> {
    const q = db('webhook_deliveries').whereIn('status', SENDABLE).where('locked_until', '<', now);
    sendableTarget(q, db);
    const row = (await q
      .min({ t: 'next_attempt_at' })
      .first()) as { t: number | string | null } | undefined;
    return row?.t === null || row?.t === undefined ? null : Number(row.t);
  },

  async list(db: Queryable, tenantId: string, webhookId: string, page: PageRequest, status?: DeliveryStatus): Promise<Page<DeliveryRow>> {
    const q = db('webhook_deliveries').where({ tenant_id: tenantId, webhook_id: webhookId });
    if (status) q.where({ status });
    return paginate<DeliveryRow>(q, page, (x) => x.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
  },

  async findById(db: Queryable, tenantId: string, webhookId: string, id: string): Promise<DeliveryRow | null> {
    const row = (await db('webhook_deliveries').where({ tenant_id: tenantId, webhook_id: webhookId, id }).first()) as DeliveryRow | undefined;
    return row ?? null;
  },

  async attempts(db: Queryable, deliveryId: string): Promise<AttemptRow[]> {
    return (await db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt_number', 'asc')) as AttemptRow[];
  },

  /** Puts failed deliveries back in the queue with a fresh round of attempts; returns how many. */
  async requeueFailed(db: Queryable, tenantId: string, webhookId: string, range: { ids?: string[]; from?: number; to?: number }, attemptsLeft: number, now: number): Promise<number> {
    const q = db('webhook_deliveries').where({ tenant_id: tenantId, webhook_id: webhookId, status: 'failed' });
    if (range.ids) q.whereIn('id', range.ids);
    if (range.from !== undefined) q.where('created_at', '>=', range.from);
    if (range.to !== undefined) q.where('created_at', '<', range.to);
    return q.update({ status: 'pending', attempts_left: attemptsLeft, next_attempt_at: now, locked_by: null, locked_until: 0, updated_at: now });
  },
};
