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

  async passwordLoginAllowed(db: Queryable, id: string): Promise<boolean> {
    const row = (await db('tenants').where({ id }).first('password_login')) as { password_login: number | boolean } | undefined;
    return Boolean(row?.password_login ?? true);
  },

  async setPasswordLogin(db: Queryable, id: string, allowed: boolean, now: number): Promise<void> {
    await db('tenants').where({ id }).update({ password_login: allowed, updated_at: now });
  },

  /** Revokes the login tokens of the tenant's users without a single sign-on identity (password sessions). */
  async revokePasswordSessions(db: Queryable, tenantId: string, now: number): Promise<number> {
    const local = db('users as u').leftJoin('sso_identities as s', 's.user_id', 'u.id').where('u.tenant_id', tenantId).whereNull('s.id').select('u.id');
    return db('api_tokens').where({ tenant_id: tenantId, kind: 'login' }).whereNull('revoked_at').whereIn('user_id', local).update({ revoked_at: now });
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
