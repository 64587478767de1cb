import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import type { DayCell, GridCell } from './finding-counter-repository.ts';

export const DAY_MS = 86_400_000;

/** A time column cut to its UTC day (the day's first millisecond); integer arithmetic, the same on both engines. */
const dayOf = (column: string) => `(${column} - (${column} % ${DAY_MS}))`;

/** Whose findings to count: a tenant's, or only those of one of its assets. */
export interface CountScope {
  tenantId: string;
  assetId?: string;
}

/** Locks what it reads on MariaDB, so a concurrent status change waits instead of slipping past the count. */
function locking(q: Knex.QueryBuilder, db: Queryable, lock: boolean): Knex.QueryBuilder {
  return lock && dialectOf(db) === 'mysql' ? q.forUpdate() : q;
}

/**
 * The aggregates of migration 018 computed from the rows themselves, with the one set of
 * definitions the counters follow: the grid counts findings by (severity rank, status);
 * a day's `created` counts findings by their created_at, its `resolved` the distinct
 * findings with a move to `resolved` (not a creation entry) in their history that day.
 * The recount compares these with the counters; an asset's deletion subtracts its share.
 */
export const findingRecountRepository = {
  async grid(db: Queryable, scope: CountScope, lock = false): Promise<GridCell[]> {
    const q = db('findings').where('tenant_id', scope.tenantId);
    if (scope.assetId) q.where('asset_id', scope.assetId);
    const rows = (await locking(q.groupBy('severity_rank', 'status').select('severity_rank', 'status', db.raw('count(*) as n')), db, lock)) as Array<{ severity_rank: number; status: FindingStatus; n: number | string }>;
    return rows.map((r) => ({ severityRank: Number(r.severity_rank), status: r.status, n: Number(r.n) }));
  },

  async days(db: Queryable, scope: CountScope, lock = false): Promise<DayCell[]> {
    const created = db('findings').where('tenant_id', scope.tenantId);
    if (scope.assetId) created.where('asset_id', scope.assetId);
    const createdRows = (await locking(created.groupByRaw(dayOf('created_at')).select(db.raw(`${dayOf('created_at')} as day`), db.raw('count(*) as n')), db, lock)) as Array<{ day: number | string; n: number | string }>;

    const resolutions = db('finding_status_history as h')
      .where({ 'h.tenant_id': scope.tenantId, 'h.new_status': 'resolved' })
      .whereNotNull('h.old_status')
      .distinct('h.finding_id', db.raw(`${dayOf('h.changed_at')} as day`));
    if (scope.assetId) resolutions.join('findings as f', 'f.id', 'h.finding_id').where('f.asset_id', scope.assetId);
    const resolvedRows = (await db.from(resolutions.as('r')).groupBy('day').select('day', db.raw('count(*) as n'))) as Array<{ day: number | string; n: number | string }>;

    const byDay = new Map<number, DayCell>();
    const cell = (day: number) => byDay.get(day) ?? byDay.set(day, { day, created: 0, resolved: 0 }).get(day)!;
    for (const r of createdRows) cell(Number(r.day)).created += Number(r.n);
    for (const r of resolvedRows) cell(Number(r.day)).resolved += Number(r.n);
    return [...byDay.values()].sort((a, b) => a.day - b.day);
  },

  /** How many moves to `resolved` the finding's history holds on the UTC day starting at `day`. */
  async resolutionsOn(db: Queryable, findingId: string, day: number): Promise<number> {
    const row = (await db('finding_status_history')
      .where({ finding_id: findingId, new_status: 'resolved' })
      .whereNotNull('old_status')
      .where('changed_at', '>=', day)
      .where('changed_at', '<', day + DAY_MS)
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },
};
