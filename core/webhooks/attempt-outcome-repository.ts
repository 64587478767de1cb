import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { DeliveryStatus } from './delivery-status.ts';
import type { NewAttempt } from './webhook-delivery-repository.ts';
import { insertBatched } from '../db/insert-batches.ts';

/** The columns an attempt's outcome sets on its delivery row (the lease is let go as well). */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  attempt_count: number;
  attempts_left: number;
  next_attempt_at: number | null;
  last_response_code: number | null;
  last_duration_ms: number;
  last_error: string | null;
  last_attempt_at: number;
  delivered_at: number | null;
  updated_at: number;
}

export interface LeasedOutcome {
  id: string;
  /** The claim token the row must still carry. */
  token: string;
  changes: DeliveryOutcome;
}

const COLUMNS: Array<keyof DeliveryOutcome> = [
  'status', 'attempt_count', 'attempts_left', 'next_attempt_at', 'last_response_code', 'last_duration_ms', 'last_error', 'last_attempt_at', 'delivered_at', 'updated_at',
];
const CHUNK = 100;

/** One column's new value per row: a plain value when the rows agree, else `CASE id WHEN … THEN … END`. */
function valueOf(db: Queryable, rows: LeasedOutcome[], column: keyof DeliveryOutcome): unknown {
  const first = rows[0]!.changes[column];
  if (rows.every((r) => r.changes[column] === first)) return first;
  const bindings: unknown[] = ['id'];
  for (const r of rows) bindings.push(r.id, r.changes[column]);
  return db.raw(`case ?? ${rows.map(() => 'when ? then ?').join(' ')} end`, bindings as Knex.RawBinding[]);
}

/**
 * Attempt outcomes written in bulk, inside the recorder's transaction: what was one
 * guarded UPDATE and one INSERT per attempt becomes, per batch, one locking read of the
 * rows still held by their claim tokens and one UPDATE and one INSERT per 100 rows. The
 * guard is the lease kernel's (core/work/lease-queue.ts `finish`): a row whose lease was
 * lost (it expired and another worker claimed it) is not written. The locking read makes
 * that check and the write one step: SQLite runs the whole transaction under its write
 * lock (BEGIN IMMEDIATE), MariaDB holds the row locks from the read to the commit.
 */
export const attemptOutcomeRepository = {
  /** Writes the outcomes of rows still leased to their tokens and releases their leases; returns the ids written. */
  async finishAttempts(trx: Queryable, outcomes: LeasedOutcome[]): Promise<Set<string>> {
    if (!outcomes.length) return new Set();
    const byToken = new Map<string, string[]>();
    for (const o of outcomes) byToken.set(o.token, [...(byToken.get(o.token) ?? []), o.id]);
    const held = new Set<string>();
    for (const [token, ids] of byToken) {
      for (let i = 0; i < ids.length; i += 500) {
        const q = trx('webhook_deliveries').whereIn('id', ids.slice(i, i + 500)).where({ locked_by: token }).select('id');
        if (dialectOf(trx) === 'mysql') q.forUpdate();
        for (const row of (await q) as Array<{ id: string }>) held.add(row.id);
      }
    }
    const kept = outcomes.filter((o) => held.has(o.id));
    for (let i = 0; i < kept.length; i += CHUNK) {
      const rows = kept.slice(i, i + CHUNK);
      const changes: Record<string, unknown> = { locked_by: null, locked_until: 0 };
      for (const column of COLUMNS) changes[column] = valueOf(trx, rows, column);
      await trx('webhook_deliveries').whereIn('id', rows.map((r) => r.id)).update(changes);
    }
    return held;
  },

  /** The attempt rows of a batch, multi-row inserts. */
  async insertAttempts(trx: Queryable, attempts: NewAttempt[]): Promise<void> {
    const rows = attempts.map((a) => ({
      tenant_id: a.tenantId, delivery_id: a.deliveryId, attempt_number: a.attemptNumber, outcome: a.outcome,
      response_code: a.responseCode, duration_ms: a.durationMs, error_code: a.errorCode, error_message: a.errorMessage,
      response_body: a.responseBody, attempted_at: a.attemptedAt,
    }));
    await insertBatched(trx, 'webhook_attempts', rows);
  },
};
