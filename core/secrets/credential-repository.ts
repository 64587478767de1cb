import type { Queryable } from '../db/create-db.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';

/** A credential as stored: the values stay sealed here; the store opens them. */
export interface CredentialRecord {
  tenantId: string;
  name: string;
  valueSealed: string;
  sandboxValueSealed: string | null;
  createdAt: number;
  updatedAt: number;
}

type Row = Record<string, any>;

const toRecord = (r: Row): CredentialRecord => ({
  tenantId: r.tenant_id,
  name: r.name,
  valueSealed: r.value_sealed,
  sandboxValueSealed: r.sandbox_value_sealed ?? null,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const credentialRepository = {
  async insert(db: Queryable, c: CredentialRecord): Promise<void> {
    await db('credentials').insert({
      tenant_id: c.tenantId, name: c.name, value_sealed: c.valueSealed, sandbox_value_sealed: c.sandboxValueSealed, created_at: c.createdAt, updated_at: c.updatedAt,
    });
  },

  async find(db: Queryable, tenantId: string, name: string): Promise<CredentialRecord | null> {
    const row = (await db('credentials').where({ tenant_id: tenantId, name }).first()) as Row | undefined;
    return row ? toRecord(row) : null;
  },

  async findMany(db: Queryable, tenantId: string, names: readonly string[]): Promise<CredentialRecord[]> {
    if (!names.length) return [];
    return ((await db('credentials').where({ tenant_id: tenantId }).whereIn('name', [...names])) as Row[]).map(toRecord);
  },

  async list(db: Queryable, tenantId: string, page: PageRequest): Promise<Page<CredentialRecord>> {
    const result = await paginate<Row>(db('credentials').where({ tenant_id: tenantId }), page, (q) => q.orderBy('name', 'asc'));
    return { rows: result.rows.map(toRecord), total: result.total };
  },

  async update(db: Queryable, tenantId: string, name: string, changes: { valueSealed?: string; sandboxValueSealed?: string | null; updatedAt: number }): Promise<number> {
    const cols: Row = { updated_at: changes.updatedAt };
    if (changes.valueSealed !== undefined) cols.value_sealed = changes.valueSealed;
    if (changes.sandboxValueSealed !== undefined) cols.sandbox_value_sealed = changes.sandboxValueSealed;
    return db('credentials').where({ tenant_id: tenantId, name }).update(cols);
  },

  async delete(db: Queryable, tenantId: string, name: string): Promise<number> {
    return db('credentials').where({ tenant_id: tenantId, name }).delete();
  },
};
