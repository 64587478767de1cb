import type { Queryable } from '../db/create-db.ts';
import { toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type { ExecutionRow, LogRow, NewExecution, NewLogLine } from './execution-rows.ts';
import { insertBatched } from '../db/insert-batches.ts';

/** Runs waiting for a worker (not for an approval), by due time; per-action concurrency is a per-key lease limit. */
function runQueue(perActionLimit: number): LeaseQueue {
  return new LeaseQueue({
    table: 'action_executions',
    ready: { status: 'pending', wait_reason: null, dry_run: false, cancel_requested: false },
    held: { status: 'running' },
    dueColumn: 'due_at',
    order: [{ column: 'due_at', order: 'asc' }, { column: 'id', order: 'asc' }],
    perKey: { column: 'action_id', limit: perActionLimit },
    // The claim starts the attempt: a run is never claimable again once it ran (at most once).
    onClaim: (db, now) => ({ status: 'running', attempt: db.raw('attempt + 1'), started_at: db.raw('coalesce(started_at, ?)', [now]), updated_at: now }),
    // A cancel of a running run is a flag its worker reads (core/work/lease-worker.ts) and settles.
    cancelWhen: { cancel_requested: true },
    // Executor slots are shared fairly among tenants (docs/design/actions.md).
    shareColumn: 'tenant_id',
  });
}

const queues = new Map<number, LeaseQueue>();
const queueFor = (limit: number): LeaseQueue => queues.get(limit) ?? queues.set(limit, runQueue(limit)).get(limit)!;
/** Renewal, finish and the lost-lease sweep do not depend on the per-action limit. */
const runs = queueFor(1);

export const executionRepository = {
  async insert(db: Queryable, e: NewExecution): Promise<void> {
    await db('action_executions').insert({
      id: e.id,
      tenant_id: e.tenantId,
      action_id: e.actionId,
      action_version_id: e.actionVersionId,
      action_name: e.actionName,
      action_version: e.actionVersion,
      status: e.status,
      wait_reason: e.waitReason,
      approval_id: e.approvalId,
      target: e.target,
      parameters: toJson(e.parameters),
      secret_refs: toJson(e.secretRefs),
      action_snapshot: toJson(e.snapshot),
      output: e.output === null ? null : toJson(e.output),
      error: e.error === null ? null : toJson(e.error),
      sandbox: e.sandbox,
      dry_run: e.dryRun,
      attempt: e.attempt,
      max_attempts: e.maxAttempts,
      requested_by: toJson(e.requestedBy),
      parent_kind: e.parent?.kind ?? null,
      parent_id: e.parent?.id ?? null,
      due_at: e.now,
      created_at: e.now,
      started_at: e.startedAt,
      completed_at: e.completedAt,
      updated_at: e.now,
    });
  },

  async get(db: Queryable, tenantId: string, id: string): Promise<ExecutionRow | undefined> {
    return db('action_executions').where({ tenant_id: tenantId, id }).first();
  },

  async getAny(db: Queryable, id: string): Promise<ExecutionRow | undefined> {
    return db('action_executions').where({ id }).first();
  },

  async listForAction(db: Queryable, tenantId: string, actionId: string, page: PageRequest): Promise<Page<ExecutionRow>> {
    return paginate<ExecutionRow>(db('action_executions').where({ tenant_id: tenantId, action_id: actionId }), page, (q) =>
      q.orderBy('created_at', 'desc').orderBy('id', 'desc'),
    );
  },

  /** The run queue with a per-action limit (what the worker claims and renews through). */
  queue: queueFor,

  /** Leases up to `limit` due runs to `token`, setting them running and counting the attempt; returns their ids. */
  async claim(db: Queryable, o: { token: string; now: number; leaseMs: number; limit: number; perActionLimit: number; skipKeys?: readonly string[] }): Promise<string[]> {
    return queueFor(o.perActionLimit).claim(db, { token: o.token, now: o.now, leaseMs: o.leaseMs, limit: o.limit, ...(o.skipKeys ? { skipKeys: o.skipKeys } : {}) });
  },

  /** Ends an attempt: final state, or back to pending for a retry. Guarded by the lease token. */
  async settle(db: Queryable, id: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return runs.finish(db, id, token, changes);
  },

  /** Moves a run that is not running (pending, waiting) to a final state, once. */
  async settleWaiting(db: Queryable, id: string, from: { status: string }, changes: Record<string, unknown>): Promise<boolean> {
    return runs.finishFree(db, id, Date.now(), from, changes);
  },

  async requestCancel(db: Queryable, id: string, now: number): Promise<boolean> {
    const n = await db('action_executions').where({ id, status: 'running' }).update({ cancel_requested: true, updated_at: now });
    return n === 1;
  },

  /** Running runs whose lease lapsed: their worker died. */
  async lost(db: Queryable, now: number, limit: number): Promise<ExecutionRow[]> {
    return runs.lost<ExecutionRow>(db, now, limit);
  },

  /** Fails a lost run if it is still lost (another sweeper may have got there first). */
  async failLost(db: Queryable, id: string, now: number, changes: Record<string, unknown>): Promise<boolean> {
    return runs.finishLost(db, id, now, changes);
  },

  async appendLogs(db: Queryable, lines: NewLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    // Batched: SQLite refuses one INSERT of more than 500 rows, and an attempt may log 2,000 between flushes.
    await insertBatched(db, 'action_execution_logs', lines.map((l) => ({ execution_id: l.executionId, tenant_id: l.tenantId, attempt: l.attempt, level: l.level, message: l.message, logged_at: l.at })));
  },

  async logs(db: Queryable, executionIds: string[], limitPerRun: number): Promise<LogRow[]> {
    if (executionIds.length === 0) return [];
    return db('action_execution_logs').whereIn('execution_id', executionIds).orderBy('id', 'asc').limit(limitPerRun * executionIds.length);
  },
};
