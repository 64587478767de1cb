import { fromJson } from '../db/json.ts';
import type { ScanRow } from './scan-repository.ts';
import { toIso, toIsoRequired } from '../time.ts';
import type { FindingSummary } from '../domain/severity.ts';
import type { AssetType } from '../domain/asset-type.ts';
import { scopeView, type ScanScopeView } from './url-scope.ts';
import type { CheckOutcome } from './check-outcomes.ts';

/** The scan as GET /api/scan/{id} and GET /api/scans show it. */
export interface ScanView {
  scan_id: string;
  asset_id: string;
  asset_name: string;
  scan_type: string;
  status: string;
  priority: string;
  progress: number;
  current_phase: string | null;
  finding_summary: FindingSummary;
  finding_count: number;
  options: Record<string, unknown>;
  callback_url: string | null;
  schedule_id: string | null;
  error: string | null;
  /** `failed`: checks that ran and failed (error or timeout); the scan may still be `completed`. */
  checks: { total: number; done: number; failed: number };
  /** What a composed scan of a URL asset covers (origin only, or the whole host); null otherwise. */
  scope: ScanScopeView | null;
  /** Every planned check with its outcome (scan detail only, not lists). */
  check_results?: CheckOutcome[];
  estimated_duration_minutes: number | null;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  created_at: string;
}

export interface ScanStatusView {
  scan_id: string;
  status: string;
  progress: number;
  current_phase: string | null;
  eta_seconds: number | null;
}

export function durationSeconds(row: Pick<ScanRow, 'started_at' | 'completed_at'>): number | null {
  return row.started_at !== null && row.completed_at !== null ? Math.max(0, Math.round((Number(row.completed_at) - Number(row.started_at)) / 1000)) : null;
}

export function toScanView(row: ScanRow): ScanView {
  return {
    scan_id: row.id,
    asset_id: row.asset_id,
    asset_name: row.asset_name ?? '',
    scan_type: row.scan_type,
    status: row.status,
    priority: row.priority,
    progress: Number(row.progress),
    current_phase: row.current_phase,
    finding_summary: fromJson<FindingSummary>(row.finding_summary, { critical: 0, high: 0, medium: 0, low: 0, info: 0 }),
    finding_count: Number(row.finding_count),
    options: fromJson<Record<string, unknown>>(row.options, {}),
    callback_url: row.callback_url,
    schedule_id: row.schedule_id,
    error: row.error,
    checks: { total: Number(row.checks_total), done: Number(row.checks_done), failed: Number(row.checks_failed ?? 0) },
    scope: row.asset_type ? scopeView(row.scan_type, { type: row.asset_type as AssetType, name: row.asset_name ?? '' }, fromJson<Record<string, unknown>>(row.options, {})) : null,
    estimated_duration_minutes: row.estimated_seconds === null ? null : Math.max(1, Math.ceil(Number(row.estimated_seconds) / 60)),
    started_at: toIso(row.started_at),
    completed_at: toIso(row.completed_at),
    duration_seconds: durationSeconds(row),
    created_at: toIsoRequired(row.created_at),
  };
}

export function toStatusView(row: ScanRow): ScanStatusView {
  return { scan_id: row.id, status: row.status, progress: Number(row.progress), current_phase: row.current_phase, eta_seconds: row.eta_seconds === null ? null : Number(row.eta_seconds) };
}
