import { dialectOf, type Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { TransformOptions, Transform } from './webhook-payload.ts';
import type { WebhookFilters } from './webhook-filter.ts';

/** A webhook as stored: sealed secrets and headers stay sealed here; the service opens them. */
export interface WebhookRecord {
  id: string;
  tenantId: string;
  name: string;
  url: string;
  events: string[];
  filters: WebhookFilters;
  transform: Transform | null;
  transformOptions: TransformOptions;
  secretSealed: string | null;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: number | null;
  headersSealed: string | null;
  headerNames: string[];
  active: boolean;
  disabledReason: string | null;
  disabledAt: number | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

interface WebhookRow {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: string;
  filters: string;
  transform: string | null;
  transform_options: string;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | string | null;
  headers_sealed: string | null;
  header_names: string;
  active: number | boolean;
  disabled_reason: string | null;
  disabled_at: number | string | null;
  failing_since: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function toRecord(r: WebhookRow): WebhookRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    url: r.url,
    events: fromJson<string[]>(r.events, []),
    filters: fromJson<WebhookFilters>(r.filters, {}),
    transform: (r.transform as Transform | null) ?? null,
    transformOptions: fromJson<TransformOptions>(r.transform_options, {}),
    secretSealed: r.secret_sealed,
    previousSecretSealed: r.previous_secret_sealed,
    previousSecretExpiresAt: num(r.previous_secret_expires_at),
    headersSealed: r.headers_sealed,
    headerNames: fromJson<string[]>(r.header_names, []),
    active: Boolean(r.active),
    disabledReason: r.disabled_reason,
    disabledAt: num(r.disabled_at),
    failingSince: num(r.failing_since),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** Column values for an insert or update; only the given fields are written. */
export type WebhookChanges = Partial<Omit<WebhookRecord, 'id' | 'tenantId' | 'createdAt'>>;

function toColumns(c: WebhookChanges): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  const set = (col: string, v: unknown) => {
    if (v !== undefined) map[col] = v;
  };
  set('name', c.name);
  set('url', c.url);
  set('events', c.events && toJson(c.events));
  set('filters', c.filters && toJson(c.filters));
  set('transform', c.transform);
  set('transform_options', c.transformOptions && toJson(c.transformOptions));
  set('secret_sealed', c.secretSealed);
  set('previous_secret_sealed', c.previousSecretSealed);
  set('previous_secret_expires_at', c.previousSecretExpiresAt);
  set('headers_sealed', c.headersSealed);
  set('header_names', c.headerNames && toJson(c.headerNames));
  set('active', c.active);
  set('disabled_reason', c.disabledReason);
  set('disabled_at', c.disabledAt);
  set('failing_since', c.failingSince);
  set('updated_at', c.updatedAt);
  return map;
}

export const webhookRepository = {
  async insert(db: Queryable, id: string, tenantId: string, values: WebhookChanges & { createdAt: number }): Promise<void> {
    await db('webhooks').insert({ id, tenant_id: tenantId, created_at: values.createdAt, ...toColumns(values) });
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<WebhookRecord | null> {
    const row = (await db('webhooks').where({ tenant_id: tenantId, id }).first()) as WebhookRow | undefined;
    return row ? toRecord(row) : null;
  },

  /** Internal use by the delivery worker, which acts for every tenant. */
  async findByIds(db: Queryable, ids: string[]): Promise<Map<string, WebhookRecord>> {
    if (!ids.length) return new Map();
    const rows = (await db('webhooks').whereIn('id', ids)) as WebhookRow[];
    return new Map(rows.map((r) => [r.id, toRecord(r)]));
  },

  async list(db: Queryable, tenantId: string, page: PageRequest): Promise<Page<WebhookRecord>> {
    const result = await paginate<WebhookRow>(db('webhooks').where({ tenant_id: tenantId }), page, (q) => q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    return { rows: result.rows.map(toRecord), total: result.total };
  },

  async countByTenant(db: Queryable, tenantId: string): Promise<number> {
    const row = (await db('webhooks').where({ tenant_id: tenantId }).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  },

  async activeForTenants(db: Queryable, tenantIds: string[]): Promise<WebhookRecord[]> {
    if (!tenantIds.length) return [];
    const rows = (await db('webhooks').whereIn('tenant_id', tenantIds).where({ active: true })) as WebhookRow[];
    return rows.map(toRecord);
  },

  async update(db: Queryable, tenantId: string, id: string, changes: WebhookChanges): Promise<number> {
    return db('webhooks').where({ tenant_id: tenantId, id }).update(toColumns(changes));
  },

  async delete(db: Queryable, tenantId: string, id: string): Promise<number> {
    return db('webhooks').where({ tenant_id: tenantId, id }).delete();
  },

  /** A batch's successes: one statement stops the failure clock of every webhook that had one running. */
  async clearFailingMany(db: Queryable, ids: string[]): Promise<void> {
    if (ids.length) await db('webhooks').whereIn('id', ids).whereNotNull('failing_since').update({ failing_since: null });
  },

  /** The failure clocks of these webhooks, locked until the transaction ends (MariaDB; SQLite's transaction holds the write lock). */
  async failureClocks(db: Queryable, ids: string[]): Promise<Map<string, number | null>> {
    if (!ids.length) return new Map();
    const q = db('webhooks').whereIn('id', ids).select('id', 'failing_since');
    if (dialectOf(db) === 'mysql') q.forUpdate();
    const rows = (await q) as Array<{ id: string; failing_since: number | string | null }>;
    return new Map(rows.map((r) => [r.id, num(r.failing_since)]));
  },

  async setFailingSince(db: Queryable, id: string, since: number | null): Promise<void> {
    await db('webhooks').where({ id }).update({ failing_since: since });
  },

  /** Disables an active webhook; 1 when this call did it (so only one process raises the alert). */
  async disable(db: Queryable, id: string, reason: string, now: number): Promise<number> {
    return db('webhooks').where({ id, active: true }).update({ active: false, disabled_reason: reason, disabled_at: now, updated_at: now });
  },
};

/** Tags of assets (the assets area's `asset_tags` table), for the `asset_tags` filter. */
export async function tagsOfAssets(db: Queryable, tenantId: string, assetIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(assetIds.map((id) => [id, []]));
  if (!assetIds.length) return out;
  const rows = (await db('asset_tags').where({ tenant_id: tenantId }).whereIn('asset_id', assetIds).select('asset_id', 'tag')) as Array<{ asset_id: string; tag: string }>;
  for (const r of rows) out.get(r.asset_id)?.push(r.tag);
  return out;
}
