import type { Db } from '../db/create-db.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Outbox } from '../events/outbox.ts';
import { executionRepository } from './execution-repository.ts';
import { FINAL_STATUSES, type ExecutionRow } from './execution-rows.ts';
import { finishExecution, type Ending } from './execution-finish.ts';
import type { ApprovalPort, ResolvedApproval } from './run-ports.ts';
import type { FinishHooks } from './finish-hooks.ts';

export interface ExecutionControlDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  approvals?: ApprovalPort;
  hooks?: FinishHooks;
  clock?: () => number;
}

const line = (row: ExecutionRow, level: string, message: string, at: number) => ({ executionId: row.id, tenantId: row.tenant_id, attempt: row.attempt, level, message, at });

/**
 * What changes a run from outside its worker: a cancel (a waiting run ends at once, a
 * running one is asked to stop through its lease heartbeat) and the decision on an
 * approval action's request. Each ending is a conditional write, so a cancel racing a
 * decision or a worker ends the run exactly once.
 */
export class ExecutionControl {
  constructor(private readonly deps: ExecutionControlDeps) {}

  #now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  async cancel(tenantId: string, executionId: string): Promise<void> {
    const row = await executionRepository.get(this.deps.db, tenantId, executionId);
    if (!row) throw new NotFoundError('Execution');
    const now = this.#now();
    if (FINAL_STATUSES.includes(row.status)) throw new ConflictError(`The execution has already ended (${row.status}).`, 'execution_finished', { status: row.status });
    if (row.status === 'running') {
      if (await executionRepository.requestCancel(this.deps.db, row.id, now)) return;
      return this.cancel(tenantId, executionId);
    }
    // A run waiting for approval: its request decides. The cancel resolves the request first;
    // one already decided (an approve won the race) is followed, and the cancel is a 409.
    // So the run and its request always agree, on both engines (issue 25).
    if (row.approval_id && this.deps.approvals) {
      const { cancelled, request } = await this.deps.approvals.cancel(tenantId, row.approval_id, 'the action run was cancelled');
      if (!cancelled && request.status !== 'cancelled') {
        throw new ConflictError(`The run's approval request was already ${request.status}; the run follows that decision.`, 'approval_resolved', { approval_status: request.status });
      }
    }
    const ending: Ending = { status: 'cancelled', output: null, error: { code: 'cancelled', message: 'The run was cancelled before it started.' } };
    const done = await finishExecution(this.deps.outbox, row, { from: { status: 'pending' } }, ending, [line(row, 'WARN', 'cancelled before it started', now)], now, this.deps.hooks);
    if (done) return;
    // Ended meanwhile: by its cancelled request's handler (then this cancel did it), or claimed or ended otherwise: look again.
    const after = await executionRepository.get(this.deps.db, tenantId, executionId);
    if (row.approval_id && after?.status === 'cancelled') return;
    return this.cancel(tenantId, executionId);
  }

  /** The approval request of an approval action was decided (or expired): end the run accordingly. Idempotent. */
  async onApprovalResolved(request: ResolvedApproval): Promise<void> {
    const row = await executionRepository.getAny(this.deps.db, request.subject.id);
    if (!row || row.status !== 'pending' || row.wait_reason !== 'approval') return;
    const now = this.#now();
    const expired = request.resolvedBy === 'expiry';
    let ending: Ending;
    if (request.status === 'approved') ending = { status: 'completed', output: { decision: 'approved', approval_id: request.id, ...(expired ? { by_expiry: true } : {}) }, error: null };
    else if (request.status === 'denied') ending = { status: 'failed', output: { decision: 'denied', approval_id: request.id }, error: { code: expired ? 'approval_expired' : 'approval_denied', message: expired ? 'The approval request expired and was denied.' : 'The approval was denied.' } };
    else if (request.status === 'expired') ending = { status: 'failed', output: { decision: 'expired', approval_id: request.id }, error: { code: 'approval_expired', message: 'The approval request expired without a decision.' } };
    else if (request.status === 'cancelled') ending = { status: 'cancelled', output: null, error: { code: 'cancelled', message: 'The approval request was cancelled.' } };
    else return;
    await finishExecution(this.deps.outbox, row, { from: { status: 'pending' } }, ending, [line(row, 'INFO', `approval ${request.status}`, now)], now, this.deps.hooks);
  }

  /** Waits until the run has ended or `ms` passed; answers whether it ended. */
  async waitForEnd(tenantId: string, executionId: string, ms: number, pollMs = 50): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const row = await executionRepository.get(this.deps.db, tenantId, executionId);
      if (!row || FINAL_STATUSES.includes(row.status)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, deadline - Date.now()))));
    }
  }
}
