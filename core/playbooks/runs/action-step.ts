import type { ExecutionView } from '../../action-runs/execution-views.ts';
import type { Db } from '../../db/create-db.ts';
import { fromJson, toJson } from '../../db/json.ts';
import { RampartError } from '../../errors.ts';
import { parseActionRef, resolveActionRef } from '../catalog/action-ref.ts';
import type { ActionStep } from '../playbook-types.ts';
import { runRepository } from './run-repository.ts';
import type { RunRow, StepRunRow, StepStatus } from './run-rows.ts';
import type { ActionPorts } from './run-ports.ts';

/**
 * An action step's run: triggers the step's action (once: the execution id derives from
 * the step run's id, so a trigger repeated after a crash returns the same execution) and
 * mirrors the execution's state into the step row.
 */
export class ActionStepRunner {
  constructor(private readonly db: Db, private readonly ports: ActionPorts) {}

  /** Triggers the action of a step row inserted as `running`, then records what the execution says. */
  async trigger(run: RunRow, step: ActionStep, row: StepRunRow, now: number): Promise<StepRunRow> {
    // Who started the run by hand is who asks for its actions (an approval step cannot be decided by them); a triggered run asks as the platform.
    const by = fromJson<{ user_id: string | null; token_id: string | null } | null>(run.requested_by, null);
    const who = { tenantId: run.tenant_id, userId: by?.user_id ?? null, tokenId: by?.token_id ?? null };
    const action = await resolveActionRef(this.ports.actions, run.tenant_id, step.action_ref);
    if (!action) return this.#fail(row, { code: 'unknown_action_ref', message: `Step ${step.id}: the action "${step.action_ref}" does not exist (any more) in this tenant.` }, now);
    const pinned = parseActionRef(step.action_ref).version;
    let view: ExecutionView;
    try {
      ({ execution: view } = await this.ports.executions.trigger(
        who,
        action.actionId,
        { target: run.target_asset_id, parameters: fromJson<Record<string, unknown>>(row.input, {}) },
        { kind: 'playbook_step', id: row.id },
        { executionId: row.action_execution_id!, ...(pinned ? { version: pinned } : {}) },
      ));
    } catch (err) {
      // A refusal (disabled action, invalid parameters, missing credential or asset) fails the step; anything else is retried on the next claim.
      if (err instanceof RampartError) return this.#fail(row, { code: err.code, message: `Step ${step.id}: ${err.message}`, ...(err.extra.details ? { details: err.extra.details } : {}) }, now);
      throw err;
    }
    return this.apply(row, view, now);
  }

  /** Re-reads the step's execution: a step whose trigger never happened (the worker died first) is triggered now. */
  async refresh(run: RunRow, step: ActionStep, row: StepRunRow, now: number): Promise<StepRunRow> {
    let view: ExecutionView;
    try {
      view = await this.ports.executions.get(run.tenant_id, row.action_execution_id!, false);
    } catch (err) {
      if ((err as RampartError).statusCode === 404) return this.trigger(run, step, row, now);
      throw err;
    }
    return this.apply(row, view, now);
  }

  async apply(row: StepRunRow, view: ExecutionView, now: number): Promise<StepRunRow> {
    const ended = ['completed', 'failed', 'timed_out', 'cancelled'].includes(view.status);
    let status: StepStatus = 'running';
    // A cancelled approval (the run's cancel won over the approve) cancels the step, and the advance ends the run cancelled.
    if (ended) status = view.status === 'completed' ? 'completed' : view.status === 'cancelled' && view.approval_id ? 'cancelled' : 'failed';
    else if (view.status === 'pending' && view.approval_id) status = 'waiting';
    if (status === row.status && !ended) return row;
    const output = { execution_id: view.execution_id, status: view.status, output: view.output ?? {}, ...(view.approval_id ? { approval_id: view.approval_id } : {}) };
    const changes = {
      status,
      output: toJson(output),
      error: ended && view.error ? toJson(view.error) : null,
      completed_at: ended ? now : null,
    };
    await runRepository.updateStep(this.db, row.id, changes);
    return { ...row, ...changes };
  }

  async #fail(row: StepRunRow, error: Record<string, unknown>, now: number): Promise<StepRunRow> {
    const changes = { status: 'failed' as const, error: toJson(error), completed_at: now };
    await runRepository.updateStep(this.db, row.id, changes);
    return { ...row, ...changes };
  }
}
