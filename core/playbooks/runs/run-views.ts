import { fromJson } from '../../db/json.ts';
import { toIso } from '../../time.ts';
import type { RunError, RunRow, RunStatus, StepRunRow, StepStatus } from './run-rows.ts';

/** The playbook execution record (GET /api/playbooks/executions/{id}). */
export interface RunView {
  execution_id: string;
  playbook_id: string;
  playbook_name: string;
  playbook_version: string;
  status: RunStatus;
  current_step: string | null;
  steps_completed: number;
  steps_total: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  error: RunError | null;
  trigger_event_id: string | null;
  target_asset_id: string | null;
  parameters: Record<string, unknown>;
  depth: number;
  cancel_requested: boolean;
}

/** A step execution record (GET /api/playbooks/executions/{id}/steps). */
export interface StepView {
  step_id: string;
  step_name: string;
  type: string;
  status: StepStatus;
  output: Record<string, unknown>;
  error: Record<string, unknown> | null;
  action_execution_id: string | null;
  started_at: string | null;
  completed_at: string | null;
}

const ms = (v: number | string | null) => (v === null ? null : Number(v));

export function toRunView(row: RunRow): RunView {
  const started = ms(row.started_at);
  const completed = ms(row.completed_at);
  const snapshot = fromJson<{ version?: string }>(row.snapshot, {});
  return {
    execution_id: row.id,
    playbook_id: row.playbook_id,
    playbook_name: row.playbook_name,
    playbook_version: snapshot.version ?? '',
    status: row.status,
    current_step: row.current_step,
    steps_completed: row.steps_completed,
    steps_total: row.steps_total,
    created_at: toIso(Number(row.created_at))!,
    started_at: toIso(started),
    completed_at: toIso(completed),
    duration_seconds: started !== null && completed !== null ? Math.round((completed - started) / 1000) : null,
    error: fromJson(row.error, null),
    trigger_event_id: row.trigger_event_id === null ? null : String(row.trigger_event_id),
    target_asset_id: row.target_asset_id,
    parameters: fromJson(row.parameters, {}),
    depth: row.depth,
    cancel_requested: Boolean(row.cancel_requested),
  };
}

export function toStepView(row: StepRunRow): StepView {
  return {
    step_id: row.step_id,
    step_name: row.step_name,
    type: row.type,
    status: row.status,
    output: fromJson(row.output, {}) ?? {},
    error: fromJson(row.error, null),
    action_execution_id: row.action_execution_id,
    started_at: toIso(ms(row.started_at)),
    completed_at: toIso(ms(row.completed_at)),
  };
}
