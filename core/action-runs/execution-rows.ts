import type { ActionVersion } from '../actions/action-version.ts';

/** Rows of the action_executions and action_execution_logs tables, and what inserts them. */
export type ExecutionStatus = 'pending' | 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
export const FINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed', 'timed_out', 'cancelled'];

export interface Requester {
  user_id: string | null;
  token_id: string | null;
}

export interface ExecutionRow {
  id: string;
  tenant_id: string;
  action_id: string;
  action_version_id: string;
  action_name: string;
  action_version: string;
  status: ExecutionStatus;
  wait_reason: string | null;
  approval_id: string | null;
  target: string | null;
  parameters: string;
  secret_refs: string;
  action_snapshot: string;
  output: string | null;
  error: string | null;
  sandbox: number | boolean;
  dry_run: number | boolean;
  attempt: number;
  max_attempts: number;
  cancel_requested: number | boolean;
  requested_by: string | null;
  parent_kind: string | null;
  parent_id: string | null;
  locked_by: string | null;
  locked_until: number | string;
  due_at: number | string;
  created_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
  updated_at: number | string;
}

export interface LogRow {
  id: number | string;
  execution_id: string;
  attempt: number;
  level: string;
  message: string;
  logged_at: number | string;
}

export interface NewExecution {
  id: string;
  tenantId: string;
  actionId: string;
  actionVersionId: string;
  actionName: string;
  actionVersion: string;
  status: ExecutionStatus;
  waitReason: string | null;
  approvalId: string | null;
  target: string | null;
  parameters: Record<string, unknown>;
  secretRefs: Record<string, string>;
  snapshot: ActionVersion;
  output: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  sandbox: boolean;
  dryRun: boolean;
  attempt: number;
  maxAttempts: number;
  requestedBy: Requester;
  parent: { kind: string; id: string } | null;
  startedAt: number | null;
  completedAt: number | null;
  now: number;
}

export interface NewLogLine {
  executionId: string;
  tenantId: string;
  attempt: number;
  level: string;
  message: string;
  at: number;
}
