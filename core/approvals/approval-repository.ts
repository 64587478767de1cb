import { dialectOf, type Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type {
  Actor, AllowedDeciders, ApprovalDecisionRecord, ApprovalRequest, ApprovalStatus, Decision, ExpiryOutcome, ResolvedBy,
} from './approval-types.ts';

interface RequestRow {
  id: string; tenant_id: string; subject_kind: string; subject_id: string; message: string; details: string;
  required_approvals: number; allowed: string | null; requested_by: string; status: ApprovalStatus; on_expiry: ExpiryOutcome;
  resolved_by: ResolvedBy | null; cancel_reason: string | null; expires_at: number | string; resolved_at: number | string | null;
  resolution_handled_at: number | string | null; created_at: number | string; updated_at: number | string;
}

interface DecisionRow {
  id: string; request_id: string; decider_user_id: string | null; decider_token_id: string; decision: Decision;
  comment: string | null; created_at: number | string;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));

function toDecision(r: DecisionRow): ApprovalDecisionRecord {
  return { id: r.id, decision: r.decision, comment: r.comment, deciderUserId: r.decider_user_id, deciderTokenId: r.decider_token_id, createdAt: Number(r.created_at) };
}

function toRequest(r: RequestRow, decisions: ApprovalDecisionRecord[]): ApprovalRequest {
  return {
    id: r.id, tenantId: r.tenant_id, subject: { kind: r.subject_kind, id: r.subject_id }, message: r.message,
    details: fromJson<Record<string, unknown>>(r.details, {}), requiredApprovals: Number(r.required_approvals),
    allowed: fromJson<AllowedDeciders | null>(r.allowed, null), requestedBy: fromJson<Actor>(r.requested_by, { userId: null, tokenId: null }),
    status: r.status, onExpiry: r.on_expiry, resolvedBy: r.resolved_by, cancelReason: r.cancel_reason, expiresAt: Number(r.expires_at),
    resolvedAt: num(r.resolved_at), resolutionHandledAt: num(r.resolution_handled_at), createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at), decisions,
  };
}

/**
 * Rows the sweeper must look at: a pending request past its expiry, or a resolved one whose
 * handler has not finished (`due_at` is null once nothing is left to do). A row whose
 * handler is running is leased, so the sweeper only takes it over when that lease lapsed.
 */
export const approvalQueue = new LeaseQueue({
  table: 'approval_requests',
  ready: {},
  dueColumn: 'due_at',
  order: [{ column: 'due_at', order: 'asc' }, { column: 'id', order: 'asc' }],
});

export interface ResolveChanges {
  status: Exclude<ApprovalStatus, 'pending'>;
  resolvedBy: ResolvedBy;
  cancelReason?: string | null;
  now: number;
  /** The lease of whoever calls the handler right after the commit. */
  leaseToken: string;
  leaseUntil: number;
}

export const approvalRepository = {
  async insert(db: Queryable, r: Omit<ApprovalRequest, 'status' | 'resolvedBy' | 'cancelReason' | 'resolvedAt' | 'resolutionHandledAt' | 'updatedAt' | 'decisions'>): Promise<void> {
    await db('approval_requests').insert({
      id: r.id, tenant_id: r.tenantId, subject_kind: r.subject.kind, subject_id: r.subject.id, message: r.message,
      details: toJson(r.details), required_approvals: r.requiredApprovals, allowed: r.allowed ? toJson(r.allowed) : null,
      requested_by: toJson(r.requestedBy), status: 'pending', on_expiry: r.onExpiry, expires_at: r.expiresAt,
      due_at: r.expiresAt, locked_until: 0, created_at: r.createdAt, updated_at: r.createdAt,
    });
  },

  /** The request with its decisions; `forUpdate` locks the row (MariaDB) so deciders of one request queue up. */
  async find(db: Queryable, tenantId: string | null, id: string, forUpdate = false): Promise<ApprovalRequest | null> {
    const q = db('approval_requests').where({ id });
    if (tenantId !== null) q.where({ tenant_id: tenantId });
    if (forUpdate && dialectOf(db) === 'mysql') q.forUpdate();
    const row = (await q.first()) as RequestRow | undefined;
    if (!row) return null;
    const decisions = (await db('approval_decisions').where({ request_id: id }).orderBy([{ column: 'created_at' }, { column: 'id' }])) as DecisionRow[];
    return toRequest(row, decisions.map(toDecision));
  },

  async list(db: Queryable, tenantId: string, filters: { status?: ApprovalStatus; subjectKind?: string; subjectId?: string }, page: PageRequest): Promise<Page<ApprovalRequest>> {
    const q = db('approval_requests').where({ tenant_id: tenantId });
    if (filters.status) q.where({ status: filters.status });
    if (filters.subjectKind) q.where({ subject_kind: filters.subjectKind });
    if (filters.subjectId) q.where({ subject_id: filters.subjectId });
    const result = await paginate<RequestRow>(q, page, (p) => p.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    const ids = result.rows.map((r) => r.id);
    const decisions = ids.length
      ? ((await db('approval_decisions').whereIn('request_id', ids).orderBy([{ column: 'created_at' }, { column: 'id' }])) as DecisionRow[])
      : [];
    return { total: result.total, rows: result.rows.map((r) => toRequest(r, decisions.filter((d) => d.request_id === r.id).map(toDecision))) };
  },

  /** Throws a unique violation when this person already decided (the UNIQUE(request_id, decider_key) index). */
  async insertDecision(db: Queryable, d: { id: string; requestId: string; tenantId: string; deciderKey: string; actor: { userId: string | null; tokenId: string }; decision: Decision; comment: string | null; now: number }): Promise<void> {
    await db('approval_decisions').insert({
      id: d.id, request_id: d.requestId, tenant_id: d.tenantId, decider_key: d.deciderKey, decider_user_id: d.actor.userId,
      decider_token_id: d.actor.tokenId, decision: d.decision, comment: d.comment, created_at: d.now,
    });
  },

  /** `locking`: a locking read on MariaDB, so the count sees every committed decision whatever the snapshot. */
  async countApprovals(db: Queryable, requestId: string, locking = false): Promise<number> {
    const q = db('approval_decisions').where({ request_id: requestId, decision: 'approve' });
    if (locking && dialectOf(db) === 'mysql') q.forShare();
    const row = (await q.count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /**
   * pending -> `status`, only if still pending: true for exactly one caller however many
   * race. The same write takes the handler lease and makes the row due at once, so if the
   * process dies before the handler ends, the sweeper re-drives it when the lease lapses.
   */
  async resolve(db: Queryable, id: string, c: ResolveChanges, heldBy?: string): Promise<boolean> {
    const q = db('approval_requests').where({ id, status: 'pending' });
    // The sweeper expires only rows it still holds.
    if (heldBy !== undefined) q.where({ locked_by: heldBy });
    const n = await q.update({
      status: c.status, resolved_by: c.resolvedBy, cancel_reason: c.cancelReason ?? null, resolved_at: c.now, updated_at: c.now,
      due_at: c.now, locked_by: c.leaseToken, locked_until: c.leaseUntil,
    });
    return n > 0;
  },

  /** The handler ran: nothing is left to do for this row (if `token` still holds its lease). */
  async markHandled(db: Queryable, id: string, token: string, now: number): Promise<boolean> {
    return approvalQueue.finish(db, id, token, { resolution_handled_at: now, due_at: null, updated_at: now });
  },

  /** Nothing left to do for a row that was already handled (lets the lease go, leaves the row alone). */
  async settle(db: Queryable, id: string, token: string): Promise<boolean> {
    return approvalQueue.finish(db, id, token, { due_at: null });
  },

  /** A decision was recorded: the request's view changed. */
  async touch(db: Queryable, id: string, now: number): Promise<void> {
    await db('approval_requests').where({ id }).update({ updated_at: now });
  },

  /** The handler failed: try again at `retryAt` (the lease is let go). */
  async retryLater(db: Queryable, id: string, token: string, retryAt: number): Promise<boolean> {
    return approvalQueue.finish(db, id, token, { due_at: retryAt });
  },

  async claimDue(db: Queryable, token: string, now: number, leaseMs: number, limit: number): Promise<string[]> {
    return approvalQueue.claim(db, { token, now, leaseMs, limit });
  },

  /** True while `token` holds the row's lease: only the holder may call its handler. */
  async holds(db: Queryable, id: string, token: string): Promise<boolean> {
    return (await db('approval_requests').where({ id, locked_by: token }).first('id')) !== undefined;
  },

  /** A pending row claimed by the sweeper that turned out not to be due: give it back. */
  async release(db: Queryable, id: string, token: string): Promise<boolean> {
    return approvalQueue.release(db, id, token);
  },
};
