import type { Outbox } from '../events/outbox.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { toJson } from '../db/json.ts';
import type { Queryable } from '../db/create-db.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { executionRepository } from './execution-repository.ts';
import type { ExecutionRow, NewLogLine } from './execution-rows.ts';
import type { FinishHooks } from './finish-hooks.ts';

export type FinalStatus = 'completed' | 'failed' | 'timed_out' | 'cancelled';

export interface Ending {
  status: FinalStatus;
  output: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
}

/** How an ending was reached: by the worker holding the lease, or by a state change of a run nobody holds. */
export type Holder = { token: string } | { from: { status: string }; lost?: boolean };

/**
 * Ends a run in one transaction: its final state, its last log lines and the
 * action.completed / action.failed event (and the parent's finish hook), so the event
 * exists if and only if the state does. Returns false when the run was no longer ours to end (lease lost, already
 * ended by a cancel or a sweeper): then nothing is written.
 */
export async function finishExecution(outbox: Outbox<EventPayloads>, row: ExecutionRow, holder: Holder, ending: Ending, logs: NewLogLine[], now: number, hooks?: FinishHooks): Promise<boolean> {
  // On MariaDB a concurrent claim's per-action lease check can lock the same rows: a
  // deadlock victim is simply done again (nothing of it was committed).
  return retryOnDeadlock(() => outbox.transaction(async (uow) => {
    const changes = {
      status: ending.status,
      output: ending.output === null ? null : toJson(ending.output),
      error: ending.error === null ? null : toJson(ending.error),
      wait_reason: null,
      completed_at: now,
      updated_at: now,
    };
    const ok = await settle(uow.trx, row.id, holder, changes, now);
    if (!ok) return false;
    await executionRepository.appendLogs(uow.trx, logs);
    await uow.emit({
      tenantId: row.tenant_id,
      kind: ending.status === 'completed' ? 'action.completed' : 'action.failed',
      data: {
        action_id: row.action_id,
        execution_id: row.id,
        action_name: row.action_name,
        status: ending.status,
        sandbox: Boolean(row.sandbox),
        error_code: ending.error?.code ?? null,
      },
    });
    await hooks?.run(row, ending.status, uow.trx);
    return true;
  }));
}

function settle(db: Queryable, id: string, holder: Holder, changes: Record<string, unknown>, now: number): Promise<boolean> {
  if ('token' in holder) return executionRepository.settle(db, id, holder.token, changes);
  if (holder.lost) return executionRepository.failLost(db, id, now, changes);
  return executionRepository.settleWaiting(db, id, holder.from, changes);
}
