import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { AgentRecord } from './agent-views.ts';

interface AgentRow {
  id: string; tenant_id: string; name: string; labels: string; token_hash: string; token_prefix: string;
  created_at: number | string; updated_at: number | string; last_seen_at: number | string | null; revoked_at: number | string | null;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));

function toAgent(r: AgentRow): AgentRecord {
  return {
    id: r.id, tenantId: r.tenant_id, name: r.name, labels: fromJson<string[]>(r.labels, []), tokenPrefix: r.token_prefix,
    createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), lastSeenAt: num(r.last_seen_at), revokedAt: num(r.revoked_at),
  };
}

export const agentRepository = {
  async insert(db: Queryable, a: { id: string; tenantId: string; name: string; labels: string[]; tokenHash: string; tokenPrefix: string; now: number }): Promise<void> {
    await db('agents').insert({
      id: a.id, tenant_id: a.tenantId, name: a.name, labels: toJson(a.labels), token_hash: a.tokenHash, token_prefix: a.tokenPrefix,
      created_at: a.now, updated_at: a.now, last_seen_at: null, revoked_at: null,
    });
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<AgentRecord | null> {
    const row = (await db('agents').where({ tenant_id: tenantId, id }).first()) as AgentRow | undefined;
    return row ? toAgent(row) : null;
  },

  async findByName(db: Queryable, tenantId: string, name: string): Promise<AgentRecord | null> {
    const row = (await db('agents').where({ tenant_id: tenantId, name }).first()) as AgentRow | undefined;
    return row ? toAgent(row) : null;
  },

  /** The agent a presented token belongs to, revoked or not (the caller decides). */
  async findByTokenHash(db: Queryable, tokenHash: string): Promise<AgentRecord | null> {
    const row = (await db('agents').where({ token_hash: tokenHash }).first()) as AgentRow | undefined;
    return row ? toAgent(row) : null;
  },

  async list(db: Queryable, tenantId: string, page: PageRequest): Promise<Page<AgentRecord>> {
    const result = await paginate<AgentRow>(db('agents').where({ tenant_id: tenantId }), page, (q) => q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    return { rows: result.rows.map(toAgent), total: result.total };
  },

  async touch(db: Queryable, id: string, now: number): Promise<void> {
    await db('agents').where({ id }).whereNull('revoked_at').update({ last_seen_at: now });
  },

  /** Marks the agent revoked; false when it already was (or does not exist). */
  async revoke(db: Queryable, tenantId: string, id: string, now: number): Promise<boolean> {
    return (await db('agents').where({ tenant_id: tenantId, id }).whereNull('revoked_at').update({ revoked_at: now, updated_at: now })) > 0;
  },
};
