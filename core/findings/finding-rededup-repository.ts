import type { Queryable } from '../db/create-db.ts';

export interface RededupProgress {
  scope: string;
  after_id: string;
  findings: number;
  keys_added: number;
  merged: number;
  started_at: number;
  done_at: number | null;
}

/** What a re-dedup batch reads of a finding: enough to derive its fingerprint again. */
export interface RededupRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  dedup_key: string;
  check_id: string | null;
  evidence: string;
  tags: string;
}

/** The re-dedup cursor (migration 032) and the batches it walks. */
export const findingRededupRepository = {
  async progress(db: Queryable, scope: string): Promise<RededupProgress | null> {
    const row = (await db('finding_rededup_progress').where({ scope }).first()) as RededupProgress | undefined;
    return row ? { ...row, findings: Number(row.findings), keys_added: Number(row.keys_added), merged: Number(row.merged), started_at: Number(row.started_at), done_at: row.done_at === null ? null : Number(row.done_at) } : null;
  },

  /** Starts the scope over (a first run, or one after a finished run). */
  async start(db: Queryable, scope: string, now: number): Promise<void> {
    const fresh = { after_id: '', findings: 0, keys_added: 0, merged: 0, started_at: now, updated_at: now, done_at: null };
    const updated = await db('finding_rededup_progress').where({ scope }).update(fresh);
    if (!updated) await db('finding_rededup_progress').insert({ scope, ...fresh });
  },

  async advance(db: Queryable, scope: string, to: { afterId: string; findings: number; keysAdded: number; merged: number; now: number; done: boolean }): Promise<void> {
    await db('finding_rededup_progress').where({ scope }).update({
      after_id: to.afterId, updated_at: to.now, done_at: to.done ? to.now : null,
      findings: db.raw('findings + ?', [to.findings]), keys_added: db.raw('keys_added + ?', [to.keysAdded]), merged: db.raw('merged + ?', [to.merged]),
    });
  },

  /** The next findings with a rule key after `afterId`, in id order. */
  async batch(db: Queryable, tenantId: string | undefined, afterId: string, size: number): Promise<RededupRow[]> {
    const q = db('findings').where('id', '>', afterId).whereNotNull('dedup_key').orderBy('id').limit(size)
      .select('id', 'tenant_id', 'asset_id', 'dedup_key', 'check_id', 'evidence', 'tags');
    if (tenantId) q.where('tenant_id', tenantId);
    return (await q) as RededupRow[];
  },

  async exists(db: Queryable, id: string): Promise<boolean> {
    return Boolean(await db('findings').where({ id }).first('id'));
  },
};
