import { pipeline, Transform, type Readable } from 'node:stream';
import type { Knex } from 'knex';
import { dialectOf, type Db, type Queryable } from '../db/create-db.ts';
import type { Severity } from '../domain/severity.ts';
import { SEVERITIES, SEVERITY_RANK, severityOfRank } from '../domain/severity.ts';
import { findingRepository, toFindingRecord, type FindingRecord, type FindingRow } from '../findings/finding-repository.ts';
import type { FindingFilters, FindingSort } from '../findings/finding-views.ts';
import type { ExportFilters } from './export-views.ts';
import { FINDING_STATUSES, type FindingStatus } from '../domain/finding-status.ts';
import { streamRows } from '../db/query-stream.ts';

/** One exported finding: the detail view without notes and status history. */
export type ExportFinding = FindingRecord;

export interface TrendDay {
  /** UTC date on which the 24-hour bucket ends. */
  day: string;
  new: number;
  resolved: number;
}

/** What the PDF's charts show, over the export's filters. */
export interface ExportSummary {
  total: number;
  by_severity: Record<Severity, number>;
  by_status: Record<FindingStatus, number>;
  /** 30 rolling 24-hour buckets ending now, oldest first. */
  trend: TrendDay[];
  /** Same rules as GET /api/findings/stats' trend.last_30_days, restricted to the filters. */
  last_30_days: { new: number; resolved: number; net_change: number };
}

/** The management page's tables: the worst unresolved findings and the assets holding the most risk. */
export interface ManagementFigures {
  tenantName: string | null;
  /** The filtered asset's name, when the export is of one asset. */
  assetName: string | null;
  /** Earliest and latest discovery among the findings in scope (null when none). */
  period: { from: number; to: number } | null;
  unresolvedBySeverity: Record<Severity, number>;
  topRisks: Array<{ title: string; severity: Severity; cvss: number; status: FindingStatus; asset: string }>;
  riskiestAssets: Array<{ name: string; type: string; unresolved: number; critical: number; high: number; maxCvss: number }>;
}

const UNRESOLVED: FindingStatus[] = ['open', 'confirmed'];

const DAY_MS = 86_400_000;

function filtersOnly(f: ExportFilters): FindingFilters {
  const { sort_by: _s, sort_order: _o, page: _p, per_page: _pp, ...filters } = f;
  return filters;
}

/** Which 24-hour bucket since `since` (0 = oldest) a time column falls in. */
function dayIndex(db: Queryable, column: string, since: number): Knex.Raw {
  // SQLite's integer division already floors non-negative integers.
  const floor = dialectOf(db) === 'mysql' ? 'FLOOR' : '';
  return db.raw(`${floor}((?? - ?) / ?) as d`, [column, since, DAY_MS]);
}

type Count = { n: number | string };

/**
 * Reads for finding exports. Filtering, joining, ordering and the row → API mapping
 * are the findings list's own (core/findings/finding-repository.ts), so an
 * export holds exactly what GET /api/findings would list.
 */
export const findingExportRepository = {
  /** How many findings the export will hold (page/per_page applied when given). */
  async count(db: Queryable, tenantId: string, f: ExportFilters): Promise<number> {
    const row = (await findingRepository.query(db, tenantId, filtersOnly(f)).count({ n: '*' }).first()) as Count | undefined;
    const total = Number(row?.n ?? 0);
    if (!f.per_page) return total;
    return Math.max(0, Math.min(f.per_page, total - ((f.page ?? 1) - 1) * f.per_page));
  },

  /** Object-mode stream of ExportFinding in the requested order, with flat memory on both engines. */
  stream(db: Db, tenantId: string, f: ExportFilters): Readable {
    const sort: FindingSort = { sortBy: f.sort_by ?? 'discovered_at', sortOrder: f.sort_order ?? 'desc' };
    const q = findingRepository.listQuery(db, tenantId, filtersOnly(f), sort);
    if (f.per_page) q.limit(f.per_page).offset(((f.page ?? 1) - 1) * f.per_page);
    const mapper = new Transform({
      objectMode: true,
      transform(row: FindingRow, _enc, done) {
        done(null, toFindingRecord(row));
      },
    });
    return pipeline(streamRows<FindingRow>(db, q), mapper, () => {});
  },

  /**
   * Every evidence key present in the findings the export will hold, read with flat memory
   * (only the evidence column; the key set is the only thing kept). The CSV needs them
   * before its header row is written.
   */
  async evidenceKeys(db: Db, tenantId: string, f: ExportFilters): Promise<Set<string>> {
    const sort: FindingSort = { sortBy: f.sort_by ?? 'discovered_at', sortOrder: f.sort_order ?? 'desc' };
    const q = findingRepository.ordered(findingRepository.query(db, tenantId, filtersOnly(f)).select('findings.evidence'), sort);
    if (f.per_page) q.limit(f.per_page).offset(((f.page ?? 1) - 1) * f.per_page);
    const keys = new Set<string>();
    for await (const row of streamRows<{ evidence: string | null }>(db, q)) {
      if (!row.evidence) continue;
      try {
        const evidence = JSON.parse(row.evidence) as unknown;
        if (evidence && typeof evidence === 'object' && !Array.isArray(evidence)) for (const key of Object.keys(evidence)) keys.add(key);
      } catch {
        // A row that is not JSON has no keys to offer; the row itself still exports.
      }
    }
    return keys;
  },

  /** The management page's figures over the filtered set (pagination ignored). */
  async management(db: Queryable, tenantId: string, f: ExportFilters): Promise<ManagementFigures> {
    const filters = filtersOnly(f);
    const unresolved = () => findingRepository.query(db, tenantId, filters).whereIn('findings.status', UNRESOLVED);
    const [tenant, asset, period, grid, top, assets] = await Promise.all([
      db('tenants').where({ id: tenantId }).first('name') as Promise<{ name: string } | undefined>,
      f.asset_id ? (db('assets').where({ tenant_id: tenantId, id: f.asset_id }).first('name') as Promise<{ name: string } | undefined>) : Promise.resolve(undefined),
      findingRepository.query(db, tenantId, filters).min({ from: 'findings.created_at' }).max({ to: 'findings.created_at' }).first() as Promise<{ from: number | string | null; to: number | string | null } | undefined>,
      unresolved().groupBy('findings.severity_rank').select('findings.severity_rank as rank').count({ n: '*' }) as Promise<Array<{ rank: number } & Count>>,
      findingRepository.withAsset(unresolved()).orderBy([{ column: 'findings.cvss_tenths', order: 'desc' }, { column: 'findings.id', order: 'desc' }]).limit(10) as Promise<FindingRow[]>,
      unresolved()
        .groupBy('findings.asset_id')
        .select('findings.asset_id')
        .count({ n: '*' })
        .max({ top: 'findings.cvss_tenths' })
        .select(db.raw('sum(case when findings.severity_rank = ? then 1 else 0 end) as critical', [SEVERITY_RANK.critical]))
        .select(db.raw('sum(case when findings.severity_rank = ? then 1 else 0 end) as high', [SEVERITY_RANK.high]))
        .orderBy([{ column: 'top', order: 'desc' }, { column: 'n', order: 'desc' }, { column: 'findings.asset_id', order: 'asc' }])
        .limit(10) as Promise<Array<{ asset_id: string; top: number | string; critical: number | string; high: number | string } & Count>>,
    ]);
    const unresolvedBySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const cell of grid) unresolvedBySeverity[severityOfRank(Number(cell.rank))] += Number(cell.n);
    const names = new Map(
      ((await db('assets').where({ tenant_id: tenantId }).whereIn('id', assets.map((a) => a.asset_id)).select('id', 'name', 'type')) as Array<{ id: string; name: string; type: string }>).map((a) => [a.id, a]),
    );
    return {
      tenantName: tenant?.name ?? null,
      assetName: asset?.name ?? null,
      period: period?.from === null || period?.from === undefined ? null : { from: Number(period.from), to: Number(period.to) },
      unresolvedBySeverity,
      topRisks: top.map(toFindingRecord).map((r) => ({ title: r.title, severity: r.severity, cvss: r.cvss, status: r.status, asset: r.asset.name })),
      riskiestAssets: assets.map((a) => ({
        name: names.get(a.asset_id)?.name ?? a.asset_id, type: names.get(a.asset_id)?.type ?? '', unresolved: Number(a.n),
        critical: Number(a.critical), high: Number(a.high), maxCvss: Number(a.top) / 10,
      })),
    };
  },

  /** Counts behind the PDF's charts, over the filtered set (pagination ignored). */
  async summary(db: Queryable, tenantId: string, f: ExportFilters, now: number): Promise<ExportSummary> {
    const filters = filtersOnly(f);
    const base = () => findingRepository.query(db, tenantId, filters);
    const since = now - 30 * DAY_MS;
    const resolvedMoves = () =>
      base().join('finding_status_history as h', 'h.finding_id', 'findings.id')
        .where('h.new_status', 'resolved').whereNotNull('h.old_status').where('h.changed_at', '>=', since);
    const [grid, newDays, resolvedDays, resolvedTotal] = await Promise.all([
      // Grouped by rank, not name: the (tenant, status, severity_rank) index covers it.
      base().groupBy('findings.status', 'findings.severity_rank').select('findings.status as status', 'findings.severity_rank as rank').count({ n: '*' }),
      base().where('findings.created_at', '>=', since).select(dayIndex(db, 'findings.created_at', since)).count({ n: '*' }).groupBy('d'),
      resolvedMoves().select(dayIndex(db, 'h.changed_at', since)).countDistinct({ n: 'findings.id' }).groupBy('d'),
      resolvedMoves().countDistinct({ n: 'findings.id' }).first(),
    ]) as [Array<{ status: FindingStatus; rank: number } & Count>, Array<{ d: number | string } & Count>, Array<{ d: number | string } & Count>, Count | undefined];
    const by_severity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    const by_status = Object.fromEntries(FINDING_STATUSES.map((s) => [s, 0])) as Record<FindingStatus, number>;
    let total = 0;
    for (const cell of grid) {
      total += Number(cell.n);
      by_severity[severityOfRank(Number(cell.rank))] += Number(cell.n);
      by_status[cell.status] += Number(cell.n);
    }
    const trend = Array.from({ length: 30 }, (_, i) => ({ day: new Date(since + (i + 1) * DAY_MS).toISOString().slice(0, 10), new: 0, resolved: 0 }));
    // A row stamped exactly `now` computes to bucket 30: it belongs to the last one.
    for (const r of newDays) trend[Math.min(29, Number(r.d))]!.new += Number(r.n);
    for (const r of resolvedDays) trend[Math.min(29, Number(r.d))]!.resolved += Number(r.n);
    const created = trend.reduce((sum, d) => sum + d.new, 0);
    const resolved = Number(resolvedTotal?.n ?? 0);
    return { total, by_severity, by_status, trend, last_30_days: { new: created, resolved, net_change: created - resolved } };
  },
};
