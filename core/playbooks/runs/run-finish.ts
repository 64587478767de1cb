import type { EventPayloads } from '../../domain/event-payloads.ts';
import type { Outbox } from '../../events/outbox.ts';
import { toJson } from '../../db/json.ts';
import { newId } from '../../ids.ts';
import type { PlaybookDefinition } from '../playbook-types.ts';
import { runRepository } from './run-repository.ts';
import type { RunError, RunRow, StepRunRow } from './run-rows.ts';

export interface RunEnding {
  status: 'completed' | 'failed' | 'cancelled';
  error: RunError | null;
}

/** Who ends the run: the worker holding its lease, or a cancel of a run nobody holds. */
export type RunHolder = { token: string } | { free: true };

/**
 * Ends a run in one transaction: its final state, its unfinished steps (running and
 * waiting ones `cancelled`, steps never reached `skipped`) and the playbook.completed /
 * playbook.failed event, so the event exists if and only if the state does. Returns the
 * action executions still running (the caller cancels them after the commit), or null
 * when the run was not ours to end (nothing written).
 */
export async function finishRun(outbox: Outbox<EventPayloads>, run: RunRow, holder: RunHolder, ending: RunEnding, now: number): Promise<string[] | null> {
  return outbox.transaction(async (uow) => {
    const steps = await runRepository.steps(uow.trx, run.id);
    const changes = {
      status: ending.status,
      error: ending.error ? toJson(ending.error) : null,
      completed_at: now,
      updated_at: now,
      steps_completed: steps.filter((s) => s.status === 'completed').length,
      current_step: currentStep(steps) ?? run.current_step,
    };
    const ok = 'token' in holder ? await runRepository.finish(uow.trx, run.id, holder.token, changes) : await runRepository.finishFree(uow.trx, run.id, now, changes);
    if (!ok) return null;
    const live = steps.filter((s) => s.status === 'running' || s.status === 'waiting' || s.status === 'pending');
    await runRepository.updateSteps(uow.trx, run.id, ['running', 'waiting', 'pending'], { status: 'cancelled', completed_at: now });
    const snapshot = JSON.parse(run.snapshot) as PlaybookDefinition;
    const seen = new Set(steps.map((s) => s.step_id));
    let seq = steps.length;
    for (const step of snapshot.steps) {
      if (seen.has(step.id)) continue;
      await runRepository.insertStep(uow.trx, { id: newId('pbs', now), run_id: run.id, tenant_id: run.tenant_id, step_id: step.id, step_name: step.name, type: step.type, status: 'skipped', action_execution_id: null, input: null, output: null, error: null, seq: ++seq, started_at: null, completed_at: null });
    }
    await uow.emit({
      tenantId: run.tenant_id,
      kind: ending.status === 'completed' ? 'playbook.completed' : 'playbook.failed',
      data: {
        playbook_id: run.playbook_id,
        execution_id: run.id,
        playbook_name: run.playbook_name,
        status: ending.status,
        trigger_event_id: run.trigger_event_id === null ? null : String(run.trigger_event_id),
        error_code: ending.status === 'completed' ? null : (ending.error?.code ?? null),
      },
    });
    return live.filter((s) => s.action_execution_id).map((s) => s.action_execution_id!);
  });
}

/** The step a run is at: the latest one started that has not ended, else the latest one started. */
export function currentStep(steps: StepRunRow[]): string | null {
  const started = steps.filter((s) => s.started_at !== null);
  const live = started.filter((s) => s.status === 'running' || s.status === 'waiting');
  const pick = (live.length ? live : started).at(-1);
  return pick?.step_id ?? null;
}
