import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import type { DiscoveredService } from '../plugin-api/index.ts';
import { insertBatched } from '../db/insert-batches.ts';

export type CheckStatus = 'pending' | 'completed' | 'error' | 'timeout' | 'cancelled';

/** Outcomes that count as a failed check: it ran and did not finish its work. */
export const FAILED_CHECK_STATUSES: readonly CheckStatus[] = ['error', 'timeout'];

export interface ScanCheckRow {
  scan_id: string;
  check_id: string;
  seq: number;
  plugin: string;
  category: string;
  status: CheckStatus;
  error: string | null;
  duration_ms: number | null;
  finding_count: number;
  completed_at: number | null;
  /** JSON list of services the check found (see 010-scan-services). */
  services?: string | null;
  /** JSON list of the WARN/ERROR lines the check wrote (see 017-scan-check-outcomes). */
  warnings?: string | null;
}

/** The warnings a finished check row recorded. */
export function warningsOf(row: Pick<ScanCheckRow, 'warnings'>): string[] {
  return fromJson<string[]>(row.warnings ?? null, []);
}

/** The services a finished check row recorded. */
export function servicesOf(row: Pick<ScanCheckRow, 'services'>): DiscoveredService[] {
  return fromJson<DiscoveredService[]>(row.services ?? null, []);
}

/** Checks planned for a scan (one row each, so a resumed scan skips finished ones) and measured durations. */
export const scanCheckRepository = {
  async insertPlan(db: Queryable, scanId: string, checks: Array<{ checkId: string; plugin: string; category: string }>): Promise<void> {
    if (!checks.length) return;
    await insertBatched(db, 'scan_checks', checks.map((c, seq) => ({ scan_id: scanId, check_id: c.checkId, seq, plugin: c.plugin, category: c.category, status: 'pending', finding_count: 0 })));
  },

  async forScan(db: Queryable, scanId: string): Promise<ScanCheckRow[]> {
    return (await db('scan_checks').where({ scan_id: scanId }).orderBy('seq')) as ScanCheckRow[];
  },

  async record(db: Queryable, scanId: string, checkId: string, r: { status: CheckStatus; error: string | null; durationMs: number; findingCount: number; services?: DiscoveredService[]; warnings?: string[]; now: number }): Promise<void> {
    await db('scan_checks')
      .where({ scan_id: scanId, check_id: checkId })
      .update({
        status: r.status,
        error: r.error?.slice(0, 500) ?? null,
        duration_ms: Math.round(r.durationMs),
        finding_count: r.findingCount,
        services: r.services?.length ? toJson(r.services) : null,
        warnings: r.warnings?.length ? toJson(r.warnings) : null,
        completed_at: r.now,
      });
  },

  async finishedCount(db: Queryable, scanId: string): Promise<number> {
    const row = (await db('scan_checks').where({ scan_id: scanId }).whereNot({ status: 'pending' }).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /** Checks of the scan that ran and failed (error or timeout). */
  async failedCount(db: Queryable, scanId: string): Promise<number> {
    const row = (await db('scan_checks').where({ scan_id: scanId }).whereIn('status', FAILED_CHECK_STATUSES).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /** Average duration per check id (ms), from completed runs. */
  async averages(db: Queryable, checkIds: string[]): Promise<Map<string, number>> {
    if (!checkIds.length) return new Map();
    const rows = (await db('check_stats').whereIn('check_id', checkIds).select('check_id', 'avg_ms')) as Array<{ check_id: string; avg_ms: number }>;
    return new Map(rows.map((r) => [r.check_id, Number(r.avg_ms)]));
  },

  /** Folds one measured duration into the running average (weight of the past capped at 19/20). */
  async measure(db: Queryable, checkId: string, durationMs: number, now: number): Promise<void> {
    const row = (await db('check_stats').where({ check_id: checkId }).first()) as { samples: number; avg_ms: number } | undefined;
    if (!row) {
      try {
        await db('check_stats').insert({ check_id: checkId, samples: 1, avg_ms: Math.round(durationMs), updated_at: now });
      } catch {
        // another worker inserted it first; this sample is simply dropped
      }
      return;
    }
    const n = Math.min(Number(row.samples), 19);
    const avg = Math.round((Number(row.avg_ms) * n + durationMs) / (n + 1));
    await db('check_stats').where({ check_id: checkId }).update({ samples: Number(row.samples) + 1, avg_ms: avg, updated_at: now });
  },
};
