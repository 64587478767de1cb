import type { CheckLog } from '../plugins/run-check.ts';
import { toIso } from '../time.ts';
import { FAILED_CHECK_STATUSES, warningsOf, type ScanCheckRow } from './scan-check-repository.ts';

/** One planned check of a scan as the scan detail shows it. */
export interface CheckOutcome {
  check_id: string;
  plugin: string;
  category: string;
  /** pending (not run yet), completed, error, timeout or cancelled. */
  status: string;
  error: string | null;
  duration_ms: number | null;
  finding_count: number;
  completed_at: string | null;
  /** What the check could not do although it finished (pages it could not fetch, a budget it used up). */
  warnings: string[];
}

/** A failed check as `scan.completed` and the callback name it. */
export interface FailedCheck {
  check_id: string;
  status: string;
  error: string | null;
  duration_ms: number | null;
}

/** Warnings kept per check, and their length: enough to say what was lost, bounded for a noisy check. */
const MAX_WARNINGS = 20;
const MAX_WARNING_CHARS = 300;
/** Failed checks named in an event: the count is always exact, the list is bounded. */
const MAX_FAILED_LISTED = 50;

/** The WARN and ERROR lines of an attempt, bounded, oldest first. */
export function warningsFrom(logs: readonly CheckLog[] | undefined): string[] {
  const lines = (logs ?? []).filter((l) => l.level === 'WARN' || l.level === 'ERROR');
  const kept = lines.slice(0, MAX_WARNINGS).map((l) => l.message.slice(0, MAX_WARNING_CHARS));
  if (lines.length > MAX_WARNINGS) kept.push(`… and ${lines.length - MAX_WARNINGS} more warning(s)`);
  return kept;
}

export function isFailedCheck(row: Pick<ScanCheckRow, 'status'>): boolean {
  return FAILED_CHECK_STATUSES.includes(row.status);
}

export function toCheckOutcome(row: ScanCheckRow): CheckOutcome {
  return {
    check_id: row.check_id,
    plugin: row.plugin,
    category: row.category,
    status: row.status,
    error: row.error,
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    finding_count: Number(row.finding_count),
    completed_at: toIso(row.completed_at),
    warnings: warningsOf(row),
  };
}

/** The failed checks of a scan, in plan order (at most 50; `checks_failed` carries the count). */
export function failedChecks(rows: readonly ScanCheckRow[]): FailedCheck[] {
  return rows
    .filter(isFailedCheck)
    .slice(0, MAX_FAILED_LISTED)
    .map((r) => ({ check_id: r.check_id, status: r.status, error: r.error, duration_ms: r.duration_ms === null ? null : Number(r.duration_ms) }));
}
