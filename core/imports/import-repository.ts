import type { Queryable } from '../db/create-db.ts';

export interface AssetRef {
  id: string;
  name: string;
  type: string;
}

const CHUNK = 500;

/**
 * The reads of an import: the assets a file's targets map to. Findings are written by
 * core/findings (finding-ingest.ts), like scanned ones.
 */
export const importRepository = {
  async assetsByIds(db: Queryable, tenantId: string, ids: string[]): Promise<Map<string, AssetRef>> {
    const out = new Map<string, AssetRef>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = (await db('assets').where('tenant_id', tenantId).whereIn('id', ids.slice(i, i + CHUNK)).select('id', 'name', 'type')) as AssetRef[];
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  },

  /** The tenant's assets among these uniqueness keys (core/assets/asset-input.ts nameKeyOf), by key. */
  async assetsByNameKeys(db: Queryable, tenantId: string, keys: string[]): Promise<Map<string, AssetRef>> {
    const out = new Map<string, AssetRef>();
    for (let i = 0; i < keys.length; i += CHUNK) {
      const rows = (await db('assets').where('tenant_id', tenantId).whereIn('name_key', keys.slice(i, i + CHUNK)).select('id', 'name', 'type', 'name_key')) as Array<AssetRef & { name_key: string }>;
      for (const r of rows) out.set(r.name_key, { id: r.id, name: r.name, type: r.type });
    }
    return out;
  },

  /** The asset of one of the tenant's scans, or null. */
  async scanAsset(db: Queryable, tenantId: string, scanId: string): Promise<string | null> {
    const row = (await db('scans').where({ tenant_id: tenantId, id: scanId }).first('asset_id')) as { asset_id: string } | undefined;
    return row?.asset_id ?? null;
  },
};
