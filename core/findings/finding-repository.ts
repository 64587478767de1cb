/**
 * FOR EXPORTS (and any other reader of findings lists): use
 *   findingRepository.listQuery(db, tenantId, filters, sort)  -> knex builder, filtered, with
 *     the asset's name and type (asset_name, asset_type), ordered; add .limit/.offset or .stream()
 *   toFindingListItem(row) / toFindingRecord(row)              -> API shapes of one row
 * `filters` are the GET /api/findings query keys (FindingFilters below); parse them
 * with `findingFilterKeys` from plugins/findings/finding-schemas.ts to validate.
 */
import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { Evidence } from '../domain/evidence.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import { fromJson, toJson } from '../db/json.ts';
import type { Severity } from '../domain/severity.ts';
import { SEVERITY_RANK, severityOfRank } from '../domain/severity.ts';
import { UNRESOLVED_STATUSES } from '../domain/finding-status.ts';
import type { OpenFindingGroup } from './risk-score.ts';
import { toIsoRequired } from '../time.ts';
import { findingSearchRepository } from './finding-search-repository.ts';
import { findingWordRepository } from './finding-word-repository.ts';
import { findingCounters } from './finding-counters.ts';
import { findingCveRepository } from './finding-cve-repository.ts';
import type { FindingFilters, FindingSort } from './finding-views.ts';
import { insertBatched } from '../db/insert-batches.ts';

export interface FindingRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  asset_name: string;
  asset_type: string;
  scan_id: string | null;
  title: string;
  description: string;
  remediation: string;
  severity: Severity;
  severity_rank: number;
  cvss_tenths: number;
  cvss_vector: string;
  status: FindingStatus;
  evidence: string;
  references: string;
  tags: string;
  updated_by: string | null;
  discovered_at: number;
  created_at: number;
  updated_at: number;
}

export interface FindingListItem {
  id: string;
  title: string;
  severity: Severity;
  cvss: number;
  status: FindingStatus;
  asset: { id: string; name: string; type: string };
  scan_id: string | null;
  description: string;
  remediation: string;
  references: string[];
  discovered_at: string;
  updated_at: string;
}

/** Every stored field of a finding: the detail view without notes and history. */
export interface FindingRecord extends FindingListItem {
  cvss_vector: string;
  evidence: Evidence;
  tags: string[];
}

export function toFindingListItem(row: FindingRow): FindingListItem {
  return {
    id: row.id,
    title: row.title,
    severity: row.severity,
    cvss: Number(row.cvss_tenths) / 10,
    status: row.status,
    asset: { id: row.asset_id, name: row.asset_name, type: row.asset_type },
    scan_id: row.scan_id,
    description: row.description,
    remediation: row.remediation,
    references: fromJson<string[]>(row.references, []),
    discovered_at: toIsoRequired(row.discovered_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}

export function toFindingRecord(row: FindingRow): FindingRecord {
  return { ...toFindingListItem(row), cvss_vector: row.cvss_vector, evidence: fromJson<Evidence>(row.evidence, {}), tags: fromJson<string[]>(row.tags, []) };
}

export interface NewFinding {
  id: string;
  tenantId: string;
  assetId: string;
  scanId: string | null;
  title: string;
  description: string;
  remediation: string;
  severity: Severity;
  cvss: number;
  cvssVector: string;
  status: FindingStatus;
  evidence: Evidence;
  references: string[];
  tags: string[];
  createdBy: string | null;
  discoveredAt: number;
  now: number;
  /** Set for findings a scan or an import reported (core/findings/finding-ingest.ts): the rule key and the rule id. */
  dedupKey?: string;
  checkId?: string;
}

const SORT_COLUMN: Record<Exclude<FindingSort['sortBy'], 'epss'>, string> = {
  severity: 'findings.severity_rank',
  cvss: 'findings.cvss_tenths',
  discovered_at: 'findings.discovered_at',
  title: 'findings.title',
};

export const findingRepository = {
  async insertMany(db: Queryable, findings: NewFinding[]): Promise<void> {
    await insertBatched(db, 'findings', findings.map((f) => ({
        id: f.id, tenant_id: f.tenantId, asset_id: f.assetId, scan_id: f.scanId, title: f.title, description: f.description,
        remediation: f.remediation, severity: f.severity, severity_rank: SEVERITY_RANK[f.severity], cvss_tenths: Math.round(f.cvss * 10),
        cvss_vector: f.cvssVector, status: f.status, evidence: toJson(f.evidence), references: toJson(f.references), tags: toJson(f.tags),
        updated_by: f.createdBy, discovered_at: f.discoveredAt, created_at: f.now, updated_at: f.now,
        dedup_key: f.dedupKey ?? null, check_id: f.checkId?.slice(0, 130) ?? null, last_seen: f.dedupKey ? f.now : null,
    })));
    await findingCounters.inserted(db, findings.map((f) => ({ tenantId: f.tenantId, severityRank: SEVERITY_RANK[f.severity], status: f.status, createdAt: f.now })));
    // SQLite's FTS5 index is kept by triggers; MariaDB's word index is written here, in the same transaction.
    if (dialectOf(db) === 'mysql') await findingWordRepository.add(db, findings);
  },

  /**
   * The filters of GET /api/findings on the findings table alone (no select, join or order);
   * `searchDrives`: see whereSearch; `walk` (MariaDB): the index to read the findings through.
   */
  query(db: Queryable, tenantId: string, f: FindingFilters, searchDrives = true, walk?: string): Knex.QueryBuilder {
    const from = walk && dialectOf(db) === 'mysql' ? db.from(db.raw('?? force index (??)', ['findings', walk])) : db('findings');
    const q = from.where('findings.tenant_id', tenantId);
    if (f.severity?.length) q.whereIn('findings.severity_rank', [...new Set(f.severity.map((s) => SEVERITY_RANK[s]))]);
    if (f.status) q.where('findings.status', f.status);
    if (f.asset_id) q.where('findings.asset_id', f.asset_id);
    if (f.scan_id) q.where('findings.scan_id', f.scan_id);
    // Scores are stored in tenths: round the bounds inwards so 7.05 means "7.1 and up".
    if (f.cvss_min !== undefined) q.where('findings.cvss_tenths', '>=', Math.ceil(f.cvss_min * 10 - 1e-9));
    if (f.cvss_max !== undefined) q.where('findings.cvss_tenths', '<=', Math.floor(f.cvss_max * 10 + 1e-9));
    if (f.search) findingSearchRepository.whereSearch(q, db, tenantId, f.search, searchDrives);
    if (f.kev !== undefined) findingCveRepository.whereKev(q, tenantId, f.kev);
    if (f.epss_min !== undefined) findingCveRepository.whereEpssAtLeast(q, tenantId, f.epss_min);
    return q;
  },

  /**
   * Selects the row shape of FindingRow: the finding plus its asset's name and type.
   * Correlated subqueries rather than a join: with a join MariaDB starts from the small
   * assets table and sorts every matching finding, where the findings index alone can
   * deliver the first page (or an export) already in order.
   */
  withAsset(q: Knex.QueryBuilder): Knex.QueryBuilder {
    const client = q.client as unknown as { queryBuilder(): Knex.QueryBuilder };
    const assetColumn = (column: string, alias: string) => client.queryBuilder().from('assets').select(column).whereRaw('?? = ??', ['assets.id', 'findings.asset_id']).as(alias);
    return q.select('findings.*', assetColumn('name', 'asset_name'), assetColumn('type', 'asset_type'));
  },

  /**
   * Orders by the sort key, ties by id. With a selective filter (one asset or scan, a search) on
   * SQLite, `+column` keeps the planner from walking the tenant-wide sort index and
   * filtering a million rows: it uses the asset/scan index and sorts the few matches.
   * (MariaDB keeps index statistics and chooses well by itself.)
   */
  ordered(q: Knex.QueryBuilder, sort: FindingSort, unindexedSort = false): Knex.QueryBuilder {
    const dir = sort.sortOrder === 'asc' ? 'asc' : 'desc';
    // No index holds a finding's score: the page is sorted from the matches whatever the filters.
    if (sort.sortBy === 'epss') return findingCveRepository.orderByEpss(q, dir);
    if (unindexedSort) {
      return q.orderByRaw(`+?? ${dir}, +?? ${dir}`, [SORT_COLUMN[sort.sortBy], 'findings.id']);
    }
    return q.orderBy([{ column: SORT_COLUMN[sort.sortBy], order: dir }, { column: 'findings.id', order: dir }]);
  },

  /**
   * Filtered, joined and ordered: what a list page or an export reads. `fromMatches`
   * (SQLite) starts from the rows the filters select rather than from the sort index; by
   * default for one asset, one scan or a search.
   */
  listQuery(db: Queryable, tenantId: string, filters: FindingFilters, sort: FindingSort, fromMatches?: boolean): Knex.QueryBuilder {
    const selective = (fromMatches ?? Boolean(filters.asset_id || filters.scan_id || filters.search)) && dialectOf(db) === 'sqlite';
    return this.ordered(this.withAsset(this.query(db, tenantId, filters)), sort, selective);
  },

  async findById(db: Queryable, tenantId: string, id: string, forUpdate = false): Promise<FindingRow | null> {
    const q = this.withAsset(db('findings').where({ 'findings.tenant_id': tenantId, 'findings.id': id })).first();
    // Serialises concurrent status changes on MariaDB; SQLite has a single writer anyway.
    if (forUpdate && dialectOf(db) === 'mysql') q.forUpdate('findings');
    return ((await q) as FindingRow | undefined) ?? null;
  },

  async findManyByIds(db: Queryable, tenantId: string, ids: string[]): Promise<FindingRow[]> {
    const rows: FindingRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      rows.push(...((await this.withAsset(db('findings').where('findings.tenant_id', tenantId).whereIn('findings.id', ids.slice(i, i + 500)))) as FindingRow[]));
    }
    return rows;
  },

  /** The asset of each of the tenant's scans among `scanIds` (absent: no such scan of this tenant). */
  async scanAssets(db: Queryable, tenantId: string, scanIds: string[]): Promise<Map<string, string>> {
    const rows = (await db('scans').where('tenant_id', tenantId).whereIn('id', scanIds).select('id', 'asset_id')) as Array<{ id: string; asset_id: string }>;
    return new Map(rows.map((r) => [r.id, r.asset_id]));
  },

  /** The row only: the caller accounts for the move with findingCounters.moved, after its history entry. */
  async updateStatus(db: Queryable, id: string, status: FindingStatus, updatedBy: string, now: number): Promise<void> {
    await db('findings').where({ id }).update({ status, updated_by: updatedBy, updated_at: now });
  },

  async touch(db: Queryable, id: string, updatedBy: string, now: number): Promise<void> {
    await db('findings').where({ id }).update({ updated_by: updatedBy, updated_at: now });
  },

  /** Unresolved findings of one asset grouped by severity, for its risk score. */
  async openGroups(db: Queryable, assetId: string): Promise<OpenFindingGroup[]> {
    const rows = (await db('findings')
      .where({ asset_id: assetId })
      .whereIn('status', UNRESOLVED_STATUSES)
      .groupBy('severity_rank')
      .select('severity_rank', db.raw('count(*) as n'), db.raw('sum(cvss_tenths) as s'))) as Array<{ severity_rank: number; n: number | string; s: number | string | null }>;
    return rows.map((r) => ({ severity: severityOfRank(Number(r.severity_rank)), count: Number(r.n), cvssSum: Number(r.s ?? 0) / 10 }));
  },
};
