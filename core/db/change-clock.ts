import type { Queryable } from './create-db.ts';
import { preparedQuery } from './prepared-query.ts';

/**
 * Collections whose lists answer conditional GETs. Every write to a tenant's records
 * (create, update, delete) calls `markChanged` for the collection in the same
 * transaction, so a list's Last-Modified covers deletions too, which a MAX(updated_at)
 * over the remaining rows would miss.
 */
export type Collection =
  | 'assets'
  | 'findings'
  | 'scans'
  | 'schedules'
  | 'actions'
  | 'playbooks'
  | 'webhooks'
  | 'integrations'
  | 'exports'
  /** Platform-admin lists of a tenant's users and tokens. */
  | 'users'
  | 'tokens';

// Read by every conditional list GET before its handler: a prepared statement.
const lastChangedAt = preparedQuery((db, tenantId: string, collection: string) => db('change_clock').where({ tenant_id: tenantId, collection }).first('changed_at'));

export const changeClock = {
  async markChanged(db: Queryable, tenantId: string, collection: Collection, now = Date.now()): Promise<void> {
    await db('change_clock')
      .insert({ tenant_id: tenantId, collection, changed_at: now })
      .onConflict(['tenant_id', 'collection'])
      .merge({ changed_at: now });
  },

  /** Epoch ms of the last change, or null if the collection never changed. */
  async lastChanged(db: Queryable, tenantId: string, collection: Collection): Promise<number | null> {
    const row = await lastChangedAt.first<{ changed_at: number | string }>(db, tenantId, collection);
    return row ? Number(row.changed_at) : null;
  },
};
