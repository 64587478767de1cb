import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { toIsoRequired } from '../time.ts';
import type { Scope } from '../domain/scopes.ts';
import { changeClock } from '../db/change-clock.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';

/** A user as the API shows it: never the password hash. */
export interface User {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  scopes: Scope[];
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  password_hash: string;
  scopes: string;
  disabled: number | boolean;
  created_at: number;
  updated_at: number;
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    email: row.email,
    name: row.name,
    scopes: fromJson<Scope[]>(row.scopes, []),
    disabled: Boolean(row.disabled),
    created_at: toIsoRequired(row.created_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}

export const userRepository = {
  async insert(
    db: Queryable,
    user: { id: string; tenantId: string; email: string; name: string; passwordHash: string; scopes: Scope[]; now: number },
  ): Promise<void> {
    await db('users').insert({
      id: user.id,
      tenant_id: user.tenantId,
      email: user.email,
      name: user.name,
      password_hash: user.passwordHash,
      scopes: toJson(user.scopes),
      disabled: false,
      created_at: user.now,
      updated_at: user.now,
    });
    await changeClock.markChanged(db, user.tenantId, 'users', user.now);
  },

  async findById(db: Queryable, id: string): Promise<User | null> {
    const row = (await db('users').where({ id }).first()) as UserRow | undefined;
    return row ? toUser(row) : null;
  },

  /** The user plus its password hash, for login only. */
  async findCredentialsByEmail(db: Queryable, email: string): Promise<{ user: User; passwordHash: string } | null> {
    const row = (await db('users').where({ email }).first()) as UserRow | undefined;
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  },

  async setPasswordHash(db: Queryable, id: string, passwordHash: string, now: number): Promise<void> {
    await db('users').where({ id }).update({ password_hash: passwordHash, updated_at: now });
  },

  /** Sets the user's scopes (an identity provider's role, at each sign-in) and, when given, its display name. */
  async setScopes(db: Queryable, id: string, scopes: readonly Scope[], now: number, name?: string | null): Promise<void> {
    await db('users').where({ id }).update({ scopes: JSON.stringify(scopes), updated_at: now, ...(name ? { name: name.slice(0, 200) } : {}) });
  },

  async listByTenant(db: Queryable, tenantId: string, page: PageRequest): Promise<Page<User>> {
    const result = await paginate<UserRow>(db('users').where({ tenant_id: tenantId }), page, (q) =>
      q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]),
    );
    return { total: result.total, rows: result.rows.map(toUser) };
  },

  /** Deletes the user (its tokens cascade) and moves both lists' change clocks. */
  async delete(db: Queryable, id: string): Promise<number> {
    const row = (await db('users').where({ id }).first('tenant_id')) as { tenant_id: string } | undefined;
    if (!row) return 0;
    const n = await db('users').where({ id }).delete();
    if (n) {
      await changeClock.markChanged(db, row.tenant_id, 'users');
      await changeClock.markChanged(db, row.tenant_id, 'tokens');
    }
    return n;
  },
};
