import type { Queryable } from '../db/create-db.ts';
import { fromJson } from '../db/json.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { toIsoRequired } from '../time.ts';

export interface ReplayQuery {
  tenantId: string;
  /** Exclusive lower bound: the client's Last-Event-ID. */
  afterId: number;
  /** Inclusive upper bound: where the live feed of the connection begins. */
  upToId: number;
  /** Only events created at or after this epoch-ms time (the replay window). */
  since: number;
  kinds: readonly string[] | null;
  assetId: string | null;
  limit: number;
}

interface Row {
  id: number | string;
  tenant_id: string | null;
  kind: string;
  asset_id: string | null;
  data: string;
  created_at: number | string;
}

/** Reads the stream replay of one tenant straight from the events table (index tenant_id, id). */
export const eventReplayRepository = {
  /** Matching events in id order; when more than `limit` match, the newest `limit`. */
  async range(db: Queryable, q: ReplayQuery): Promise<PlatformEvent[]> {
    if (q.upToId <= q.afterId) return [];
    let query = db('events')
      .where('tenant_id', q.tenantId)
      .andWhere('id', '>', q.afterId)
      .andWhere('id', '<=', q.upToId)
      .andWhere('created_at', '>=', q.since);
    if (q.kinds) query = query.whereIn('kind', [...q.kinds]);
    if (q.assetId !== null) query = query.andWhere('asset_id', q.assetId);
    const rows = (await query.orderBy('id', 'desc').limit(q.limit)) as Row[];
    return rows.reverse().map((row) => ({
      id: String(row.id),
      kind: row.kind,
      tenantId: row.tenant_id,
      assetId: row.asset_id,
      timestamp: toIsoRequired(Number(row.created_at)),
      data: fromJson<Record<string, unknown>>(row.data, {}),
    }));
  },
};
