import type { Queryable } from '../db/create-db.ts';

/** What an import needs to know of a finding that has its dedup key. */
export interface ImportHit {
  id: string;
  asset_id: string;
  dedup_key: string;
  status: string;
  updated_at: number;
  last_seen: number | null;
  severity_rank: number;
}

export interface AssetRef {
  id: string;
  name: string;
  type: string;
}

const CHUNK = 500;

/**
 * The reads and the one bulk write of an import. Findings themselves are inserted by
 * FindingService.insertPrepared and updated by the scan engine's scanFindingRepository,
 * like scanned ones; this adds the lookups across assets that a file needs.
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

  /** Findings already holding these (asset, dedup key) pairs, keyed `asset_id \0 dedup_key`. */
  async byDedupKeys(db: Queryable, pairs: Array<{ assetId: string; key: string }>): Promise<Map<string, ImportHit>> {
    const byAsset = new Map<string, string[]>();
    for (const p of pairs) byAsset.set(p.assetId, [...(byAsset.get(p.assetId) ?? []), p.key]);
    const out = new Map<string, ImportHit>();
    for (const [assetId, keys] of byAsset) {
      for (let i = 0; i < keys.length; i += CHUNK) {
        const rows = (await db('findings').where('asset_id', assetId).whereIn('dedup_key', keys.slice(i, i + CHUNK))
          .select('id', 'asset_id', 'dedup_key', 'status', 'updated_at', 'last_seen', 'severity_rank')) as ImportHit[];
        for (const r of rows) out.set(`${r.asset_id}\u0000${r.dedup_key}`, r);
      }
    }
    return out;
  },

  /**
   * Sets the dedup columns of freshly inserted findings in one statement per chunk (the
   * scan engine sets them row by row; a 100k-result file makes that the slowest step).
   */
  async setDedupMany(db: Queryable, rows: Array<{ id: string; key: string; checkId: string }>, now: number): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const keyCase = chunk.map(() => 'WHEN ? THEN ?').join(' ');
      await db('findings')
        .whereIn('id', chunk.map((r) => r.id))
        .update({
          dedup_key: db.raw(`CASE id ${keyCase} END`, chunk.flatMap((r) => [r.id, r.key])),
          check_id: db.raw(`CASE id ${keyCase} END`, chunk.flatMap((r) => [r.id, r.checkId])),
          last_seen: now,
        });
    }
  },
};
