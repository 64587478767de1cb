/** Rows of the playbook_runs and playbook_step_runs tables. */
export type RunStatus = 'pending' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
export const LIVE_RUN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'paused'];

export type StepStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped' | 'cancelled';
export const ENDED_STEP_STATUSES: readonly StepStatus[] = ['completed', 'failed', 'skipped', 'cancelled'];

export interface RunError {
  code: string;
  message: string;
  step_id?: string;
  /** Steps that failed (with on_failure continue, the run completes and lists them here). */
  failed_steps?: Array<{ step_id: string; code: string; message: string; details?: Array<{ field: string; message: string }> }>;
}

export interface RunRow {
  id: string;
  tenant_id: string;
  playbook_id: string;
  playbook_version_id: string;
  playbook_name: string;
  snapshot: string;
  status: RunStatus;
  trigger_event_id: number | string | null;
  trigger_event: string | null;
  target_asset_id: string | null;
  asset: string | null;
  parameters: string;
  depth: number;
  current_step: string | null;
  steps_completed: number;
  steps_total: number;
  error: string | null;
  dry_run: number | boolean;
  cancel_requested: number | boolean;
  wakes: number;
  requested_by: string | null;
  locked_by: string | null;
  locked_until: number | string;
  due_at: number | string;
  deadline_at: number | string | null;
  created_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
  updated_at: number | string;
}

export interface StepRunRow {
  id: string;
  run_id: string;
  tenant_id: string;
  step_id: string;
  step_name: string;
  type: string;
  status: StepStatus;
  action_execution_id: string | null;
  input: string | null;
  output: string | null;
  error: string | null;
  seq: number;
  started_at: number | string | null;
  completed_at: number | string | null;
}

export interface TriggerEventRef {
  id: string | null;
  kind: string;
  data: Record<string, unknown>;
  /** A run caused by another run's event: the run at the top of that chain (the tree's root), for the fan-out bound. */
  root_run_id?: string;
}

export interface NewRun {
  id: string;
  tenantId: string;
  playbookId: string;
  versionId: string;
  playbookName: string;
  snapshot: unknown;
  triggerEvent: TriggerEventRef | null;
  targetAssetId: string | null;
  asset: Record<string, unknown> | null;
  parameters: Record<string, unknown>;
  depth: number;
  stepsTotal: number;
  requestedBy: { user_id: string | null; token_id: string | null } | null;
  /** A run started at once (by hand): running from `at`, failing with `timeout` at `deadline`. */
  start?: { at: number; deadline: number };
  now: number;
}

/** The action execution id a step run triggers: derived from the step run's id, so a repeated trigger finds the same run. */
export function executionIdFor(stepRunId: string): string {
  return `exe_${stepRunId.slice(stepRunId.indexOf('_') + 1)}`;
}
