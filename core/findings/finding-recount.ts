import type { Db } from '../db/create-db.ts';
import { findingCounterRepository, type DayCell, type GridCell } from './finding-counter-repository.ts';
import { findingRecountRepository } from './finding-recount-repository.ts';
import { findingSearchRepository, type SearchIndexCheck } from './finding-search-repository.ts';

/** One counter that differs from the rows: `stored` is what the counters said, `counted` what the rows say. */
export interface CounterDifference {
  counter: string;
  stored: number;
  counted: number;
}

export interface TenantRecount {
  tenantId: string;
  differences: CounterDifference[];
  repaired: boolean;
}

export interface RecountReport {
  tenants: TenantRecount[];
  /** Tenants checked, and how many had differences. */
  checked: number;
  inconsistent: number;
  search: SearchIndexCheck;
}

const gridKey = (c: GridCell) => `grid severity_rank=${c.severityRank} status=${c.status}`;
const dayKey = (day: number, field: string) => `daily ${new Date(day).toISOString().slice(0, 10)} ${field}`;

function flatten(grid: GridCell[], days: DayCell[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of grid) if (c.n) out.set(gridKey(c), c.n);
  for (const d of days) {
    if (d.created) out.set(dayKey(d.day, 'created'), d.created);
    if (d.resolved) out.set(dayKey(d.day, 'resolved'), d.resolved);
  }
  return out;
}

/** Every counter where the two sides differ (absent = 0), sorted by name. */
export function compareCounters(stored: Map<string, number>, counted: Map<string, number>): CounterDifference[] {
  const keys = [...new Set([...stored.keys(), ...counted.keys()])].sort();
  return keys.filter((k) => (stored.get(k) ?? 0) !== (counted.get(k) ?? 0)).map((counter) => ({ counter, stored: stored.get(counter) ?? 0, counted: counted.get(counter) ?? 0 }));
}

/**
 * The consistency check of the maintained finding counters (`rampart admin findings
 * recount`): recomputes every counter of each tenant from the findings and their history
 * and lists those that differ; with `repair`, replaces the tenant's counters with the
 * recount in one transaction (on MariaDB it locks the tenant's findings while it counts,
 * so finding writes wait), and rebuilds a damaged SQLite search index. Without repair
 * nothing is written; a check taken while findings change may see a write half-way and
 * report a difference that a second run does not.
 */
export async function recountFindings(db: Db, options: { tenantId?: string; repair?: boolean } = {}): Promise<RecountReport> {
  const tenants = options.tenantId ? [options.tenantId] : await findingCounterRepository.tenants(db);
  const results: TenantRecount[] = [];
  for (const tenantId of tenants) {
    const scope = { tenantId };
    const stored = flatten(await findingCounterRepository.grid(db, tenantId), await findingCounterRepository.allDays(db, tenantId));
    const counted = flatten(await findingRecountRepository.grid(db, scope), await findingRecountRepository.days(db, scope));
    const differences = compareCounters(stored, counted);
    let repaired = false;
    if (differences.length && options.repair) {
      await db.transaction(async (trx) => {
        const fresh = { grid: await findingRecountRepository.grid(trx, scope, true), days: await findingRecountRepository.days(trx, scope, true) };
        await findingCounterRepository.replace(trx, tenantId, fresh.grid, fresh.days);
      });
      repaired = true;
    }
    results.push({ tenantId, differences, repaired });
  }
  const search = await findingSearchRepository.check(db, options.repair ?? false);
  return { tenants: results.filter((r) => r.differences.length), checked: results.length, inconsistent: results.filter((r) => r.differences.length).length, search };
}
