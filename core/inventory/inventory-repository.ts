import type { Knex } from 'knex';
import type { Db, Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { InventoryChange } from './inventory-diff.ts';
import { insertBatched } from '../db/insert-batches.ts';

export interface SbomRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  format: string;
  spec_version: string;
  status: 'writing' | 'current' | 'superseded';
  subject_name: string | null;
  subject_version: string | null;
  tool: string | null;
  component_count: number;
  dependency_count: number;
  summary: string;
  uploaded_by: string | null;
  created_at: number;
}

export interface ComponentRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  sbom_id: string;
  name: string;
  group_name: string | null;
  version: string | null;
  purl: string | null;
  purl_base: string | null;
  type: string | null;
  licenses: string;
  direct: number | boolean;
}

export interface ComponentFilters {
  /** Case-insensitive substring of the name. */
  search?: string;
  /** `pkg:type/namespace/name`, and the version when the query named one. */
  purlBase?: string;
  version?: string | null;
  /** Exact name, case-insensitive. */
  name?: string;
}

const STALE_WRITING_MS = 6 * 3600_000;

/** `%`, `_` and the escape character itself, escaped for `LIKE … ESCAPE '!'`. */
export const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

export function licensesOf(row: ComponentRow): string[] {
  return fromJson<string[]>(row.licenses, []);
}

/** Components of the current inventories only: an upload's rows count once it is the asset's inventory. */
function current(db: Queryable, tenantId: string): Knex.QueryBuilder {
  return db('sbom_components as c').join('asset_inventories as i', 'i.sbom_id', 'c.sbom_id').where('c.tenant_id', tenantId).andWhere('i.tenant_id', tenantId);
}

function filtered(q: Knex.QueryBuilder, f: ComponentFilters): Knex.QueryBuilder {
  if (f.search) q.whereRaw("c.name_lower like ? escape '!'", [`%${likeEscape(f.search.toLowerCase())}%`]);
  if (f.purlBase) q.where('c.purl_base', f.purlBase);
  if (f.version) q.where('c.version', f.version);
  if (f.name) q.where('c.name_lower', f.name.toLowerCase());
  return q;
}

export const inventoryRepository = {
  async findAsset(db: Queryable, tenantId: string, assetId: string): Promise<{ id: string; name: string } | null> {
    return ((await db('assets').where({ id: assetId, tenant_id: tenantId }).first('id', 'name')) as { id: string; name: string } | undefined) ?? null;
  },

  async currentSbomId(db: Queryable, assetId: string): Promise<string | null> {
    const row = (await db('asset_inventories').where({ asset_id: assetId }).first('sbom_id')) as { sbom_id: string } | undefined;
    return row?.sbom_id ?? null;
  },

  /** Removes uploads of the asset that never became its inventory (a crash mid-write) and are hours old. */
  async removeStale(db: Db, assetId: string, now: number): Promise<void> {
    const stale = (await db('sboms').where({ asset_id: assetId, status: 'writing' }).andWhere('created_at', '<', now - STALE_WRITING_MS).pluck('id')) as string[];
    for (const id of stale) await this.removeRows(db, id, true);
  },

  async insertSbom(db: Queryable, row: SbomRow): Promise<void> {
    await db('sboms').insert(row);
  },

  async insertMany(db: Db, table: 'sbom_components' | 'sbom_dependencies' | 'sbom_changes', rows: object[]): Promise<void> {
    await insertBatched(db, table, rows);
  },

  /** The package keys and versions of an upload, for the diff. */
  async keysOf(db: Queryable, sbomId: string): Promise<Array<Pick<ComponentRow, 'name' | 'group_name' | 'version' | 'purl_base'>>> {
    return db('sbom_components').where({ sbom_id: sbomId }).select('name', 'group_name', 'version', 'purl_base');
  },

  /**
   * Makes `sbomId` the asset's inventory if the inventory is still `expected` (compare and
   * set: of two uploads diffed against the same inventory, the second is refused).
   */
  async makeCurrent(trx: Queryable, r: { tenantId: string; assetId: string; expected: string | null; sbomId: string; now: number }): Promise<boolean> {
    if (r.expected === null) {
      await trx('asset_inventories').insert({ asset_id: r.assetId, tenant_id: r.tenantId, sbom_id: r.sbomId, updated_at: r.now }).onConflict('asset_id').ignore();
      if ((await this.currentSbomId(trx, r.assetId)) !== r.sbomId) return false;
    } else {
      const n = await trx('asset_inventories').where({ asset_id: r.assetId, sbom_id: r.expected }).update({ sbom_id: r.sbomId, updated_at: r.now });
      if (n !== 1) return false;
      await trx('sboms').where({ id: r.expected }).update({ status: 'superseded' });
    }
    await trx('sboms').where({ id: r.sbomId }).update({ status: 'current' });
    return true;
  },

  /** An upload's components and edges (the record and its history stay unless `all`). */
  async removeRows(db: Db, sbomId: string, all = false): Promise<void> {
    await db('sbom_dependencies').where({ sbom_id: sbomId }).delete();
    await db('sbom_components').where({ sbom_id: sbomId }).delete();
    if (all) {
      await db('sbom_changes').where({ sbom_id: sbomId }).delete();
      await db('sboms').where({ id: sbomId }).delete();
    }
  },

  listComponents(db: Queryable, tenantId: string, assetId: string, f: ComponentFilters, page: PageRequest): Promise<Page<ComponentRow>> {
    return paginate<ComponentRow>(filtered(current(db, tenantId).where('c.asset_id', assetId), f).select('c.*'), page, (q) => q.orderBy([{ column: 'c.name_lower' }, { column: 'c.id' }]));
  },

  /** Every current component matching the filters, across the tenant's assets, with the asset's name. */
  whereRunning(db: Queryable, tenantId: string, f: ComponentFilters, page: PageRequest): Promise<Page<ComponentRow & { asset_name: string }>> {
    const q = filtered(current(db, tenantId), f).join('assets as a', 'a.id', 'c.asset_id').select('c.*', 'a.name as asset_name');
    return paginate(q, page, (x) => x.orderBy([{ column: 'a.name' }, { column: 'c.asset_id' }, { column: 'c.name_lower' }, { column: 'c.version' }, { column: 'c.id' }]));
  },

  async findComponent(db: Queryable, tenantId: string, id: string): Promise<(ComponentRow & { asset_name: string }) | null> {
    const row = await current(db, tenantId).join('assets as a', 'a.id', 'c.asset_id').where('c.id', id).first('c.*', 'a.name as asset_name');
    return (row as (ComponentRow & { asset_name: string }) | undefined) ?? null;
  },

  /** What the component depends on and what depends on it, within its upload. */
  async neighbours(db: Queryable, component: ComponentRow, limit: number): Promise<{ dependsOn: ComponentRow[]; dependedOnBy: ComponentRow[] }> {
    const [dependsOn, dependedOnBy] = await Promise.all([
      db('sbom_dependencies as d').join('sbom_components as c', 'c.id', 'd.child_id').where({ 'd.sbom_id': component.sbom_id, 'd.parent_id': component.id }).orderBy('c.name_lower').limit(limit).select('c.*'),
      db('sbom_dependencies as d').join('sbom_components as c', 'c.id', 'd.parent_id').where({ 'd.sbom_id': component.sbom_id, 'd.child_id': component.id }).orderBy('c.name_lower').limit(limit).select('c.*'),
    ]);
    return { dependsOn, dependedOnBy };
  },

  /** Findings of an asset whose evidence JSON contains any of the strings (component-findings.ts decides). */
  candidateFindings(db: Queryable, tenantId: string, assetId: string, strings: string[], limit: number): Promise<unknown[]> {
    return db('findings')
      .where({ tenant_id: tenantId, asset_id: assetId })
      .andWhere((q) => {
        for (const p of strings) q.orWhereRaw("evidence like ? escape '!'", [`%${likeEscape(p)}%`]);
      })
      .orderBy([{ column: 'severity_rank', order: 'desc' }, { column: 'id' }])
      .limit(limit)
      .select('id', 'asset_id', 'title', 'severity', 'cvss_tenths', 'status', 'evidence', 'tags', 'updated_at');
  },

  listSboms(db: Queryable, tenantId: string, assetId: string, page: PageRequest): Promise<Page<SbomRow>> {
    const q = db('sboms').where({ tenant_id: tenantId, asset_id: assetId }).whereNot('status', 'writing');
    return paginate<SbomRow>(q, page, (x) => x.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
  },

  listChanges(db: Queryable, tenantId: string, assetId: string, sbomId: string | null, page: PageRequest): Promise<Page<ChangeRow>> {
    const q = db('sbom_changes as h').join('sboms as s', 's.id', 'h.sbom_id').where({ 'h.tenant_id': tenantId, 'h.asset_id': assetId }).whereNot('s.status', 'writing');
    if (sbomId) q.where('h.sbom_id', sbomId);
    return paginate<ChangeRow>(q.select('h.*'), page, (x) => x.orderBy([{ column: 'h.id', order: 'desc' }]));
  },

  changeRows(tenantId: string, assetId: string, sbomId: string, changes: InventoryChange[], now: number): object[] {
    return changes.map((c) => ({ tenant_id: tenantId, asset_id: assetId, sbom_id: sbomId, change: c.change, name: c.name, purl_base: c.purlBase, old_version: c.oldVersion, new_version: c.newVersion, created_at: now }));
  },

  summaryOf(row: SbomRow): Record<string, number> {
    return fromJson<Record<string, number>>(row.summary, {});
  },

  summaryJson(summary: Record<string, number>): string {
    return toJson(summary);
  },
};

export interface ChangeRow {
  id: number;
  sbom_id: string;
  change: string;
  name: string;
  purl_base: string | null;
  old_version: string | null;
  new_version: string | null;
  created_at: number;
}
