import { fromJson } from '../db/json.ts';
import { toIso } from '../time.ts';
import type { ExecutionRow, ExecutionStatus, LogRow } from './execution-rows.ts';

export interface LogLineView {
  timestamp: string;
  level: string;
  message: string;
  attempt: number;
}

/** The execution record of the API (GET /api/actions/executions/{id}); `logs` only where asked for. */
export interface ExecutionView {
  execution_id: string;
  action_id: string;
  action_name: string;
  action_version: string;
  status: ExecutionStatus;
  target: string | null;
  parameters: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  sandbox: boolean;
  dry_run: boolean;
  attempt: number;
  max_attempts: number;
  approval_id: string | null;
  cancel_requested: boolean;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  logs?: LogLineView[];
}

export function toLogLineView(row: LogRow): LogLineView {
  return { timestamp: toIso(Number(row.logged_at))!, level: row.level, message: row.message, attempt: row.attempt };
}

export function toExecutionView(row: ExecutionRow, logs?: LogRow[]): ExecutionView {
  const started = row.started_at === null ? null : Number(row.started_at);
  const completed = row.completed_at === null ? null : Number(row.completed_at);
  return {
    execution_id: row.id,
    action_id: row.action_id,
    action_name: row.action_name,
    action_version: row.action_version,
    status: row.status,
    target: row.target,
    parameters: fromJson(row.parameters, {}),
    output: fromJson(row.output, null),
    error: fromJson(row.error, null),
    sandbox: Boolean(row.sandbox),
    dry_run: Boolean(row.dry_run),
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    approval_id: row.approval_id,
    cancel_requested: Boolean(row.cancel_requested),
    created_at: toIso(Number(row.created_at))!,
    started_at: toIso(started),
    completed_at: toIso(completed),
    duration_seconds: started !== null && completed !== null ? Math.round((completed - started) / 1000) : null,
    ...(logs ? { logs: logs.map(toLogLineView) } : {}),
  };
}
