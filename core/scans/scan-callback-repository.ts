import type { Queryable } from '../db/create-db.ts';
import { LeaseQueue } from '../work/lease-queue.ts';

export interface CallbackRow {
  scan_id: string;
  url: string;
  secret_sealed: string | null;
  payload: string;
  attempts: number;
}

export interface NewCallback {
  scanId: string;
  tenantId: string;
  url: string;
  secretSealed: string | null;
  payload: string;
  now: number;
}

/** Pending callbacks whose due time has come, oldest due first; a retry is the same row with a later due time. */
const callbackQueue = new LeaseQueue({
  table: 'scan_callbacks',
  idColumn: 'scan_id',
  ready: { status: 'pending' },
  dueColumn: 'next_attempt_at',
  order: [{ column: 'next_attempt_at' }],
});

export const scanCallbackRepository = {
  /** The delivery row of a finished scan that asked for a callback (in the finishing transaction). */
  async insert(db: Queryable, c: NewCallback): Promise<void> {
    await db('scan_callbacks').insert({
      scan_id: c.scanId, tenant_id: c.tenantId, url: c.url, secret_sealed: c.secretSealed, payload: c.payload,
      status: 'pending', attempts: 0, next_attempt_at: c.now, locked_until: 0, created_at: c.now, updated_at: c.now,
    });
  },

  /** Leases the next due callback to `token`. */
  async claimNext(db: Queryable, token: string, now: number, leaseMs: number): Promise<CallbackRow | null> {
    const [id] = await callbackQueue.claim(db, { token, now, leaseMs });
    return id ? ((await db('scan_callbacks').where({ scan_id: id }).first()) as CallbackRow) : null;
  },

  /** Records an attempt's outcome (delivered, failed, or pending again at `next_attempt_at`) if the lease is still ours. */
  async finish(db: Queryable, scanId: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return callbackQueue.finish(db, scanId, token, changes);
  },

  /** Gives a claimed callback back untouched. */
  async release(db: Queryable, scanId: string, token: string): Promise<boolean> {
    return callbackQueue.release(db, scanId, token);
  },
};
