import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { toIso, toIsoRequired } from '../time.ts';
import type { AssetType } from '../domain/asset-type.ts';
import type { FindingSummary } from '../domain/severity.ts';
import { whereContains } from '../db/like-pattern.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { preparedQuery } from '../db/prepared-query.ts';
import type { AssetFilters, AssetStatus } from './asset-views.ts';
import { insertBatched } from '../db/insert-batches.ts';

export interface AssetRow {
  id: string;
  tenant_id: string;
  name: string;
  name_key: string;
  type: AssetType;
  status: AssetStatus;
  verified: number | boolean;
  risk_score: number;
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  tags: string;
  metadata: string;
  search_text: string;
  verification_token: string | null;
  verification_issued_at: number | null;
  verification_method: string | null;
  verified_at: number | null;
  last_scan: number | null;
  created_at: number;
  updated_at: number;
}

/** The list view of the spec: no metadata, finding_summary or updated_at. */
export interface AssetListItem {
  id: string;
  name: string;
  type: AssetType;
  status: AssetStatus;
  verified: boolean;
  risk_score: number;
  tags: string[];
  last_scan: string | null;
  created_at: string;
}

export interface AssetDetail extends AssetListItem {
  metadata: Record<string, unknown>;
  finding_summary: FindingSummary;
  updated_at: string;
}

export function toAssetListItem(row: AssetRow): AssetListItem {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    verified: Boolean(row.verified),
    risk_score: Number(row.risk_score),
    tags: fromJson<string[]>(row.tags, []),
    last_scan: toIso(row.last_scan),
    created_at: toIsoRequired(row.created_at),
  };
}

export function toAssetDetail(row: AssetRow): AssetDetail {
  return {
    ...toAssetListItem(row),
    metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
    finding_summary: {
      critical: Number(row.open_critical),
      high: Number(row.open_high),
      medium: Number(row.open_medium),
      low: Number(row.open_low),
      info: Number(row.open_info),
    },
    updated_at: toIsoRequired(row.updated_at),
  };
}

export interface NewAsset {
  id: string;
  tenantId: string;
  name: string;
  nameKey: string;
  type: AssetType;
  tags: string[];
  metadata: Record<string, unknown>;
  searchText: string;
  now: number;
}

function rowOf(a: NewAsset): Record<string, unknown> {
  return {
    id: a.id, tenant_id: a.tenantId, name: a.name, name_key: a.nameKey, type: a.type, status: 'pending_verification',
    verified: false, risk_score: 0, tags: toJson(a.tags), metadata: toJson(a.metadata), search_text: a.searchText,
    created_at: a.now, updated_at: a.now,
  };
}

// The record read of GET /api/assets/{id} and of every service that looks an asset up.
const assetById = preparedQuery((db, tenantId: string, id: string) => db('assets').where({ tenant_id: tenantId, id }).first());

export const assetRepository = {
  /** Inserts assets and their tag rows; a duplicate name_key raises a unique violation. */
  async insertMany(db: Queryable, assets: NewAsset[]): Promise<void> {
    if (!assets.length) return;
    await insertBatched(db, 'assets', assets.map(rowOf));
    await insertBatched(db, 'asset_tags', assets.flatMap((a) => a.tags.map((tag) => ({ asset_id: a.id, tenant_id: a.tenantId, tag }))));
  },

  async findById(db: Queryable, tenantId: string, id: string, forUpdate = false): Promise<AssetRow | null> {
    if (!forUpdate) return (await assetById.first<AssetRow>(db, tenantId, id)) ?? null;
    const q = db('assets').where({ tenant_id: tenantId, id }).first();
    if (forUpdate && dialectOf(db) === 'mysql') q.forUpdate();
    return ((await q) as AssetRow | undefined) ?? null;
  },

  /** Which of these name keys already exist in the tenant. */
  async existingKeys(db: Queryable, tenantId: string, keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = (await db('assets').where({ tenant_id: tenantId }).whereIn('name_key', keys).select('name_key')) as Array<{ name_key: string }>;
    return new Set(rows.map((r) => r.name_key));
  },

  filtered(db: Queryable, tenantId: string, f: Omit<AssetFilters, 'sortBy' | 'sortOrder'>): Knex.QueryBuilder {
    const q = db('assets').where('assets.tenant_id', tenantId);
    if (f.type) q.where('assets.type', f.type);
    if (f.status) q.where('assets.status', f.status);
    if (f.tag) {
      q.whereExists((s) => s.select(db.raw('1')).from('asset_tags').whereRaw('asset_tags.asset_id = assets.id').where({ 'asset_tags.tenant_id': tenantId, 'asset_tags.tag': f.tag }));
    }
    if (f.search) whereContains(q, ['assets.search_text'], f.search, false);
    return q;
  },

  async list(db: Queryable, tenantId: string, filters: AssetFilters, page: PageRequest): Promise<Page<AssetRow>> {
    const { sortBy, sortOrder } = filters;
    return paginate<AssetRow>(this.filtered(db, tenantId, filters).select('assets.*'), page, (q) =>
      q.orderBy([{ column: `assets.${sortBy}`, order: sortOrder }, { column: 'assets.id', order: sortOrder }]),
    );
  },

  async update(db: Queryable, tenantId: string, id: string, changes: Record<string, unknown>, tags?: string[]): Promise<void> {
    await db('assets').where({ tenant_id: tenantId, id }).update(changes);
    if (tags) {
      await db('asset_tags').where({ asset_id: id }).delete();
      await insertBatched(db, 'asset_tags', tags.map((tag) => ({ asset_id: id, tenant_id: tenantId, tag })));
    }
  },

  /** Deletes the asset; rows that reference it (tags, findings, scans, schedules) go by ON DELETE CASCADE. */
  async delete(db: Queryable, tenantId: string, id: string): Promise<number> {
    return db('assets').where({ tenant_id: tenantId, id }).delete();
  },

  /** Stores the recomputed risk; updated_at moves too so the record's Last-Modified covers it. */
  async setRisk(db: Queryable, id: string, summary: FindingSummary, riskScore: number, now: number): Promise<void> {
    await db('assets').where({ id }).update({
      updated_at: now,
      risk_score: riskScore,
      open_critical: summary.critical,
      open_high: summary.high,
      open_medium: summary.medium,
      open_low: summary.low,
      open_info: summary.info,
    });
  },
};
