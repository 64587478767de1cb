import type { Queryable } from '../db/create-db.ts';
import { toIsoRequired } from '../time.ts';
import type { Tier } from '../domain/scopes.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';

export interface Tenant {
  id: string;
  name: string;
  tier: Tier;
  created_at: string;
  updated_at: string;
}

interface TenantRow {
  id: string;
  name: string;
  tier: Tier;
  created_at: number;
  updated_at: number;
}

function toTenant(row: TenantRow): Tenant {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    created_at: toIsoRequired(row.created_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}

export const tenantRepository = {
  async insert(db: Queryable, tenant: { id: string; name: string; tier: Tier; now: number }): Promise<void> {
    await db('tenants').insert({ id: tenant.id, name: tenant.name, tier: tenant.tier, created_at: tenant.now, updated_at: tenant.now });
  },

  async findById(db: Queryable, id: string): Promise<Tenant | null> {
    const row = (await db('tenants').where({ id }).first()) as TenantRow | undefined;
    return row ? toTenant(row) : null;
  },

  async findByName(db: Queryable, name: string): Promise<Tenant | null> {
    const row = (await db('tenants').where({ name }).first()) as TenantRow | undefined;
    return row ? toTenant(row) : null;
  },

  async count(db: Queryable): Promise<number> {
    const row = (await db('tenants').count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  },

  async list(db: Queryable, page: PageRequest): Promise<Page<Tenant>> {
    const result = await paginate<TenantRow>(db('tenants'), page, (q) => q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    return { total: result.total, rows: result.rows.map(toTenant) };
  },

  /** Epoch ms of the latest tenant write; tenants are never deleted, so this covers every change to the list. */
  async lastUpdated(db: Queryable): Promise<number | null> {
    const row = (await db('tenants').max({ at: 'updated_at' }).first()) as { at: number | string | null } | undefined;
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  },

  async update(db: Queryable, id: string, changes: { name?: string; tier?: Tier }, now: number): Promise<void> {
    await db('tenants').where({ id }).update({ ...changes, updated_at: now });
  },
};
