import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import { insertBatches } from '../db/insert-batches.ts';

/** One cell of a tenant's severity × status grid. */
export interface GridCell {
  severityRank: number;
  status: FindingStatus;
  n: number;
}

/** One UTC day of a tenant: findings created, and distinct findings moved to resolved. */
export interface DayCell {
  day: number;
  created: number;
  resolved: number;
}

const CHUNK = 200;

/**
 * Adds to counter rows, creating the missing ones: one multi-row upsert whose update adds
 * the incoming amount to the stored one, so concurrent writers never overwrite each
 * other's counts (MariaDB holds the row lock to commit; SQLite has a single writer).
 * Rows are written in key order, the same order in every transaction, so two writers
 * touching the same cells queue up instead of deadlocking.
 */
async function upsertAdding(db: Queryable, table: string, keys: string[], amounts: string[], rows: Array<Record<string, string | number>>): Promise<void> {
  const sorted = [...rows].sort((a, b) => {
    for (const k of keys) if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
    return 0;
  });
  const mysql = dialectOf(db) === 'mysql';
  const merge = Object.fromEntries(amounts.map((a) => [a, db.raw(mysql ? '?? + values(??)' : '?? + excluded.??', [`${table}.${a}`, a])]));
  for (const batch of insertBatches(sorted, CHUNK)) await db(table).insert(batch).onConflict(keys).merge(merge);
}

/** The SQL side of the maintained aggregates (migration 018): adds deltas, reads them, replaces a tenant's. */
export const findingCounterRepository = {
  async addGrid(db: Queryable, tenantId: string, cells: GridCell[]): Promise<void> {
    const rows = cells.filter((c) => c.n !== 0).map((c) => ({ tenant_id: tenantId, severity_rank: c.severityRank, status: c.status, n: c.n }));
    if (rows.length) await upsertAdding(db, 'finding_counters', ['tenant_id', 'severity_rank', 'status'], ['n'], rows);
  },

  async addDays(db: Queryable, tenantId: string, days: DayCell[]): Promise<void> {
    const rows = days.filter((d) => d.created !== 0 || d.resolved !== 0).map((d) => ({ tenant_id: tenantId, day: d.day, created: d.created, resolved: d.resolved }));
    if (rows.length) await upsertAdding(db, 'finding_daily', ['tenant_id', 'day'], ['created', 'resolved'], rows);
  },

  async grid(db: Queryable, tenantId: string): Promise<GridCell[]> {
    const rows = (await db('finding_counters').where({ tenant_id: tenantId }).select('severity_rank', 'status', 'n')) as Array<{ severity_rank: number; status: FindingStatus; n: number | string }>;
    return rows.map((r) => ({ severityRank: Number(r.severity_rank), status: r.status, n: Number(r.n) }));
  },

  /** The tenant's findings with one of these ranks and statuses (all when a list is absent): a sum over at most 25 rows. */
  async total(db: Queryable, tenantId: string, ranks?: number[], status?: FindingStatus): Promise<number> {
    const q = db('finding_counters').where({ tenant_id: tenantId });
    if (ranks) q.whereIn('severity_rank', ranks);
    if (status) q.where('status', status);
    const row = (await q.sum({ n: 'n' }).first()) as { n: number | string | null } | undefined;
    return Number(row?.n ?? 0);
  },

  /** Days from `first` (a UTC day's first millisecond) on, ascending; days without a row had no activity. */
  async days(db: Queryable, tenantId: string, first: number): Promise<DayCell[]> {
    const rows = (await db('finding_daily').where({ tenant_id: tenantId }).where('day', '>=', first).orderBy('day')
      .select('day', 'created', 'resolved')) as Array<{ day: number | string; created: number | string; resolved: number | string }>;
    return rows.map((r) => ({ day: Number(r.day), created: Number(r.created), resolved: Number(r.resolved) }));
  },

  async allDays(db: Queryable, tenantId: string): Promise<DayCell[]> {
    return this.days(db, tenantId, Number.MIN_SAFE_INTEGER);
  },

  /** Replaces the tenant's counters with these (the repair of a recount). */
  async replace(db: Queryable, tenantId: string, grid: GridCell[], days: DayCell[]): Promise<void> {
    await db('finding_counters').where({ tenant_id: tenantId }).delete();
    await db('finding_daily').where({ tenant_id: tenantId }).delete();
    await this.addGrid(db, tenantId, grid);
    await this.addDays(db, tenantId, days);
  },

  /** Every tenant: what a recount of all tenants covers (counter rows belong to tenants and go with them). */
  async tenants(db: Queryable): Promise<string[]> {
    return ((await db('tenants').orderBy('id').pluck('id')) as string[]);
  },
};
