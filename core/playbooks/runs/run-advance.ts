import type { Db } from '../../db/create-db.ts';
import type { FieldProblem } from '../../errors.ts';
import { fromJson, toJson } from '../../db/json.ts';
import { newId } from '../../ids.ts';
import { evaluateConditions } from '../language/conditions.ts';
import { missingValuesError, renderParameters } from '../language/templates.ts';
import type { PlaybookDefinition, PlaybookStep } from '../playbook-types.ts';
import { ActionStepRunner } from './action-step.ts';
import { contextOf } from './run-context.ts';
import type { RunEnding } from './run-finish.ts';
import { executionIdFor, type RunError, type RunRow, type StepRunRow } from './run-rows.ts';
import { runRepository } from './run-repository.ts';
import { nextSteps, reachable } from './step-flow.ts';
import type { ActionPorts } from './run-ports.ts';

/** What one advance decided: the run ends, or it waits (paused on an approval, or running) until woken. */
export type Advance = { end: RunEnding } | { wait: { paused: boolean; currentStep: string | null; stepsCompleted: number } };

const isLive = (r: StepRunRow) => r.status === 'running' || r.status === 'waiting' || r.status === 'pending';
const isEnded = (r: StepRunRow) => !isLive(r);

/**
 * Moves a run as far as it can go now, from its step rows alone (so any worker can pick
 * it up where a dead one stopped): refreshes steps whose action is running, starts every
 * step whose predecessors are done, evaluates conditions, joins parallel branches, and
 * says whether the run has ended. A step row is written before its action is triggered,
 * and the UNIQUE(run, step) key means a step is started at most once.
 */
export class RunAdvancer {
  readonly #actions: ActionStepRunner;

  constructor(private readonly db: Db, ports: ActionPorts) {
    this.#actions = new ActionStepRunner(db, ports);
  }

  async advance(run: RunRow, now: number): Promise<Advance> {
    const def = fromJson<PlaybookDefinition>(run.snapshot, null as unknown as PlaybookDefinition);
    const byId = new Map(def.steps.map((s) => [s.id, s]));
    let rows = await runRepository.steps(this.db, run.id);
    for (const row of rows) {
      const step = byId.get(row.step_id);
      if (step?.type === 'action' && (row.status === 'running' || row.status === 'waiting')) await this.#actions.refresh(run, step, row, now);
    }
    // An approval step whose request was cancelled ends the run cancelled before any next step starts (issue 25).
    const refused = (await runRepository.steps(this.db, run.id)).find((r) => r.status === 'cancelled');
    if (refused) return { end: { status: 'cancelled', error: { code: 'cancelled', message: `The run was cancelled: the approval request of step ${refused.step_id} was cancelled.` } } };
    for (let guard = 0; guard < def.steps.length * 3 + 3; guard++) {
      rows = await runRepository.steps(this.db, run.id);
      const failed = rows.filter((r) => r.status === 'failed');
      if (failed.length && def.on_failure === 'abort') {
        const first = failed[0]!;
        const [summary] = failedList([first]);
        return { end: { status: 'failed', error: { code: 'step_failed', message: `Step ${first.step_id} failed: ${summary!.message || summary!.code}`, step_id: first.step_id, failed_steps: failedList(failed) } } };
      }
      const have = new Map(rows.map((r) => [r.step_id, r]));
      const todo = [...activated(def, rows)].filter((id) => !have.has(id));
      let changed = false;
      for (const id of todo) {
        await this.#start(run, byId.get(id)!, rows, now);
        changed = true;
      }
      for (const row of rows) {
        const step = byId.get(row.step_id);
        if (step?.type !== 'parallel' || row.status !== 'running') continue;
        const branch = reachable(def.steps, step.next_steps);
        const live = rows.some((r) => branch.has(r.step_id) && isLive(r));
        const pendingInBranch = todo.some((id) => branch.has(id));
        if (!live && !pendingInBranch) {
          await runRepository.updateStep(this.db, row.id, { status: 'completed', output: toJson({ branches: step.next_steps }), completed_at: now });
          changed = true;
        }
      }
      if (!changed) break;
    }
    const live = rows.filter(isLive);
    if (!live.length) {
      const failed = rows.filter((r) => r.status === 'failed');
      const error: RunError | null = failed.length ? { code: 'steps_failed', message: `${failed.length} step(s) failed; the playbook continues on failure.`, failed_steps: failedList(failed) } : null;
      return { end: { status: 'completed', error } };
    }
    return { wait: { paused: live.some((r) => r.status === 'waiting'), currentStep: live.at(-1)!.step_id, stepsCompleted: rows.filter((r) => r.status === 'completed').length } };
  }

  async #start(run: RunRow, step: PlaybookStep, rows: StepRunRow[], now: number): Promise<void> {
    const id = newId('pbs', now);
    const base = { id, run_id: run.id, tenant_id: run.tenant_id, step_id: step.id, step_name: step.name, type: step.type, action_execution_id: null, input: null, output: null, error: null, seq: rows.length + 1, started_at: now, completed_at: null };
    const context = contextOf(run, rows);
    if (step.type === 'condition') {
      const result = evaluateConditions(step.if, context);
      await runRepository.insertStep(this.db, { ...base, status: 'completed', output: toJson({ result }), completed_at: now });
      return;
    }
    if (step.type === 'parallel') {
      await runRepository.insertStep(this.db, { ...base, status: 'running' });
      return;
    }
    const rendered = renderParameters(step.parameters ?? {}, context);
    if (rendered.missing.length) {
      const error = missingValuesError(step.id, rendered.missing);
      await runRepository.insertStep(this.db, { ...base, status: 'failed', error: toJson(error), completed_at: now });
      return;
    }
    const row: StepRunRow = { ...base, status: 'running', action_execution_id: executionIdFor(id), input: toJson(rendered.value) };
    // Written before the trigger: a worker that dies in between leaves a row whose action the next one triggers (same execution id).
    if (!(await runRepository.insertStep(this.db, row))) return;
    await this.#actions.trigger(run, step, row, now);
  }
}

/** The steps the flow has reached so far: the first, and every successor of a step that ended (or of a parallel step that started). */
export function activated(def: PlaybookDefinition, rows: StepRunRow[]): Set<string> {
  const byId = new Map(def.steps.map((s) => [s.id, s]));
  const out = new Set<string>(def.steps.length ? [def.steps[0]!.id] : []);
  for (const row of rows) {
    const step = byId.get(row.step_id);
    if (!step) continue;
    if (step.type === 'parallel') for (const b of step.next_steps) out.add(b);
    if (!isEnded(row)) continue;
    const output = step.type === 'action' ? null : fromJson(row.output, null);
    for (const next of nextSteps(step, { status: row.status as 'completed', output }, def.on_failure)) out.add(next);
  }
  return out;
}

/**
 * Each failed step's code and message; a refusal with field-level details ("Invalid
 * parameters.") carries them in the message and as `details`, so the run's error says
 * what was wrong without a second request for the step records.
 */
function failedList(rows: StepRunRow[]): NonNullable<RunError['failed_steps']> {
  return rows.map((r) => {
    const e = fromJson<{ code?: string; message?: string; details?: FieldProblem[] } | null>(r.error, null);
    const details = Array.isArray(e?.details) ? e.details : [];
    const message = details.length ? `${e?.message ?? ''} ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`.trim() : (e?.message ?? '');
    return { step_id: r.step_id, code: e?.code ?? 'failed', message, ...(details.length ? { details } : {}) };
  });
}
