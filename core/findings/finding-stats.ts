import type { Db } from '../db/create-db.ts';
import { findingHistoryRepository } from './finding-history-repository.ts';
import { findingRepository } from './finding-repository.ts';
import { FINDING_STATUSES, type FindingStatus } from '../domain/finding-status.ts';
import type { Severity } from '../domain/severity.ts';
import { SEVERITIES } from '../domain/severity.ts';

export interface FindingStats {
  total: number;
  by_severity: Record<Severity, number>;
  by_status: Record<FindingStatus, number>;
  trend: { last_30_days: { new: number; resolved: number; net_change: number } };
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Tenant-wide counts. by_severity and by_status both cover every finding (each sums to
 * total). Trend over the last 30 days: `new` = findings recorded in that window (the
 * creation entries of the history), `resolved` = distinct findings moved to `resolved`
 * in it, `net_change` = new − resolved.
 */
export async function findingStats(db: Db, tenantId: string, now = Date.now()): Promise<FindingStats> {
  const since = now - 30 * DAY_MS;
  const [grid, created, resolved] = await Promise.all([
    findingRepository.countGrid(db, tenantId),
    findingRepository.countCreatedSince(db, tenantId, since),
    findingHistoryRepository.countResolvedSince(db, tenantId, since),
  ]);
  const by_severity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const by_status = Object.fromEntries(FINDING_STATUSES.map((s) => [s, 0])) as Record<FindingStatus, number>;
  let total = 0;
  for (const cell of grid) {
    total += cell.count;
    by_severity[cell.severity] += cell.count;
    by_status[cell.status] += cell.count;
  }
  return { total, by_severity, by_status, trend: { last_30_days: { new: created, resolved, net_change: created - resolved } } };
}
