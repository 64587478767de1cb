import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { toIso, toIsoRequired } from '../time.ts';
import type { Scope, Tier } from '../domain/scopes.ts';
import { changeClock } from '../db/change-clock.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { preparedQuery } from '../db/prepared-query.ts';

export type TokenKind = 'api' | 'login' | 'bootstrap';

/** A token as the API lists it: the hash and the value are never included. */
export interface ApiToken {
  id: string;
  tenant_id: string;
  user_id: string | null;
  name: string;
  kind: TokenKind;
  token_prefix: string;
  scopes: Scope[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

/** What authentication needs about a presented token, in one query. */
export interface TokenGrant {
  tokenId: string;
  tenantId: string;
  tenantTier: Tier;
  userId: string | null;
  scopes: Scope[];
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  userDisabled: boolean;
}

interface TokenRow {
  id: string;
  tenant_id: string;
  user_id: string | null;
  name: string;
  kind: TokenKind;
  token_hash: string;
  token_prefix: string;
  scopes: string;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

function toToken(row: TokenRow): ApiToken {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    user_id: row.user_id,
    name: row.name,
    kind: row.kind,
    token_prefix: row.token_prefix,
    scopes: fromJson<Scope[]>(row.scopes, []),
    expires_at: toIso(row.expires_at),
    revoked_at: toIso(row.revoked_at),
    last_used_at: toIso(row.last_used_at),
    created_at: toIsoRequired(row.created_at),
  };
}

export interface NewToken {
  id: string;
  tenantId: string;
  userId: string | null;
  name: string;
  kind: TokenKind;
  tokenHash: string;
  tokenPrefix: string;
  scopes: Scope[];
  expiresAt: number | null;
  now: number;
}

type GrantRow = Pick<TokenRow, 'id' | 'tenant_id' | 'user_id' | 'scopes' | 'expires_at' | 'revoked_at' | 'last_used_at'> & { tier: Tier; disabled: number | null };

// Every authenticated request runs this: compiled once, a prepared statement after that.
const grantByHash = preparedQuery((db, tokenHash: string) =>
  db('api_tokens as t')
    .join('tenants as n', 'n.id', 't.tenant_id')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .where('t.token_hash', tokenHash)
    .first('t.id', 't.tenant_id', 't.user_id', 't.scopes', 't.expires_at', 't.revoked_at', 't.last_used_at', 'n.tier', 'u.disabled'),
);

export const tokenRepository = {
  async insert(db: Queryable, t: NewToken): Promise<void> {
    await db('api_tokens').insert({
      id: t.id,
      tenant_id: t.tenantId,
      user_id: t.userId,
      name: t.name,
      kind: t.kind,
      token_hash: t.tokenHash,
      token_prefix: t.tokenPrefix,
      scopes: toJson(t.scopes),
      expires_at: t.expiresAt,
      revoked_at: null,
      last_used_at: null,
      created_at: t.now,
    });
    await changeClock.markChanged(db, t.tenantId, 'tokens');
  },

  async findGrantByHash(db: Queryable, tokenHash: string): Promise<TokenGrant | null> {
    const row = await grantByHash.first<GrantRow>(db, tokenHash);
    if (!row) return null;
    return {
      tokenId: row.id,
      tenantId: row.tenant_id,
      tenantTier: row.tier,
      userId: row.user_id,
      scopes: fromJson<Scope[]>(row.scopes, []),
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
      userDisabled: Boolean(row.disabled),
    };
  },

  async findById(db: Queryable, id: string): Promise<ApiToken | null> {
    const row = (await db('api_tokens').where({ id }).first()) as TokenRow | undefined;
    return row ? toToken(row) : null;
  },

  /** A user's live API tokens (personal tokens), newest first, at most 100. */
  async listPersonal(db: Queryable, tenantId: string, userId: string): Promise<ApiToken[]> {
    const rows = (await db('api_tokens').where({ tenant_id: tenantId, user_id: userId, kind: 'api' }).whereNull('revoked_at')
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(100)) as TokenRow[];
    return rows.map(toToken);
  },

  async touch(db: Queryable, id: string, now: number): Promise<void> {
    await db('api_tokens').where({ id }).update({ last_used_at: now });
  },

  async revoke(db: Queryable, id: string, now: number): Promise<void> {
    const row = (await db('api_tokens').where({ id }).first('tenant_id')) as { tenant_id: string } | undefined;
    if (row && (await db('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: now }))) await changeClock.markChanged(db, row.tenant_id, 'tokens', now);
  },

  /** Revokes the user's live tokens holding any scope outside `allowed` (a demotion, a cut-off identity); returns how many. */
  async revokeBeyond(db: Queryable, userId: string, tenantId: string, allowed: readonly Scope[], now: number): Promise<number> {
    const live = (await db('api_tokens').where({ user_id: userId }).whereNull('revoked_at').select('id', 'scopes')) as Array<{ id: string; scopes: string }>;
    const beyond = live.filter((t) => fromJson<Scope[]>(t.scopes, []).some((s) => !allowed.includes(s))).map((t) => t.id);
    if (beyond.length === 0) return 0;
    await db('api_tokens').whereIn('id', beyond).update({ revoked_at: now });
    await changeClock.markChanged(db, tenantId, 'tokens', now);
    return beyond.length;
  },

  /**
   * When a tenant's token list last changed: issued, revoked or deleted (change clock), or
   * used (`last_used_at` is part of the list, and moves without a clock tick).
   */
  async listLastModified(db: Queryable, tenantId: string): Promise<number> {
    const used = (await db('api_tokens').where({ tenant_id: tenantId }).max({ at: 'last_used_at' }).first()) as { at: number | string | null } | undefined;
    return Math.max(Number(used?.at ?? 0), (await changeClock.lastChanged(db, tenantId, 'tokens')) ?? 0);
  },

  async listByTenant(db: Queryable, tenantId: string, page: PageRequest, includeRevoked: boolean): Promise<Page<ApiToken>> {
    const query = db('api_tokens').where({ tenant_id: tenantId });
    if (!includeRevoked) query.whereNull('revoked_at');
    const result = await paginate<TokenRow>(query, page, (q) =>
      q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]),
    );
    return { total: result.total, rows: result.rows.map(toToken) };
  },
};
