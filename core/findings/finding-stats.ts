import type { Db } from '../db/create-db.ts';
import { findingCounterRepository } from './finding-counter-repository.ts';
import { DAY_MS } from './finding-recount-repository.ts';
import { utcDay } from './finding-counters.ts';
import { FINDING_STATUSES, type FindingStatus } from '../domain/finding-status.ts';
import type { Severity } from '../domain/severity.ts';
import { SEVERITIES, severityOfRank } from '../domain/severity.ts';

export interface FindingStats {
  total: number;
  by_severity: Record<Severity, number>;
  by_status: Record<FindingStatus, number>;
  trend: { last_30_days: { new: number; resolved: number; net_change: number; daily: DailyTrend[] } };
}

/** One UTC calendar day of the trend: findings created that day, and distinct findings resolved that day. */
export interface DailyTrend {
  date: string;
  new: number;
  resolved: number;
}

/**
 * Tenant-wide counts, read from the maintained counters (migration 018; kept in the
 * transaction of every finding change), so the cost does not grow with the findings: at
 * most 25 grid rows and 30 day rows. by_severity and by_status both cover every finding
 * (each sums to total). The trend covers the 30 UTC calendar days ending today (today so
 * far included): per day `new` = findings created that day, `resolved` = distinct
 * findings moved to resolved that day; the window's `new` and `resolved` are the sums of
 * its days, `net_change` = new − resolved.
 */
export async function findingStats(db: Db, tenantId: string, now = Date.now()): Promise<FindingStats> {
  const today = utcDay(now);
  const first = today - 29 * DAY_MS;
  const [grid, days] = await Promise.all([findingCounterRepository.grid(db, tenantId), findingCounterRepository.days(db, tenantId, first)]);
  const by_severity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const by_status = Object.fromEntries(FINDING_STATUSES.map((s) => [s, 0])) as Record<FindingStatus, number>;
  let total = 0;
  for (const cell of grid) {
    total += cell.n;
    by_severity[severityOfRank(cell.severityRank)] += cell.n;
    by_status[cell.status] += cell.n;
  }
  const byDay = new Map(days.map((d) => [d.day, d]));
  const daily: DailyTrend[] = [];
  let created = 0;
  let resolved = 0;
  for (let day = first; day <= today; day += DAY_MS) {
    const d = byDay.get(day);
    daily.push({ date: new Date(day).toISOString().slice(0, 10), new: d?.created ?? 0, resolved: d?.resolved ?? 0 });
    created += d?.created ?? 0;
    resolved += d?.resolved ?? 0;
  }
  return { total, by_severity, by_status, trend: { last_30_days: { new: created, resolved, net_change: created - resolved, daily } } };
}
