import { dialectOf, type Queryable } from '../db/create-db.ts';
import { fromJson } from '../db/json.ts';
import type { KeyKind } from './finding-fingerprint.ts';

/** A finding's fingerprint key row, as a merge keeps it. */
export interface KeyRow {
  kind: KeyKind;
  key_hash: string;
  value: string;
}

/** What moved to the kept finding in one merge, by row id, and the keys it gained. */
export interface Moved {
  notes: string[];
  history: number[];
  sources: number[];
  gainedKeys: string[];
}

export interface MergeRow {
  id: number;
  survivor_id: string;
  merged_id: string;
  snapshot: { row: Record<string, unknown>; keys: KeyRow[] };
  moved: Moved;
  merged_by: string;
  merged_at: number;
  split_by: string | null;
  split_at: number | null;
}

// MariaDB's stored lower-cased search copies (migration 018) are computed: never written.
const GENERATED = ['search_title', 'search_description'];

/** The rows a merge moves and the record that undoes it (migration 031). */
export const findingMergeRepository = {
  async rawRow(db: Queryable, id: string): Promise<Record<string, unknown>> {
    const row = (await db('findings').where({ id }).first()) as Record<string, unknown>;
    for (const c of GENERATED) delete row[c];
    return row;
  },

  async keys(db: Queryable, findingId: string): Promise<KeyRow[]> {
    return (await db('finding_keys').where({ finding_id: findingId }).select('kind', 'key_hash', 'value')) as KeyRow[];
  },

  /** Moves notes, history and sources (those of a rule the target lacks) from one finding to another; returns their ids. */
  async move(db: Queryable, from: string, to: string): Promise<Omit<Moved, 'gainedKeys'>> {
    const notes = (await db('finding_notes').where({ finding_id: from }).pluck('id')) as string[];
    const history = ((await db('finding_status_history').where({ finding_id: from }).pluck('id')) as Array<number | string>).map(Number);
    const have = (await db('finding_sources').where({ finding_id: to }).pluck('rule_key')) as string[];
    const sources = ((await db('finding_sources').where({ finding_id: from }).whereNotIn('rule_key', have.length ? have : ['']).pluck('id')) as Array<number | string>).map(Number);
    await this.reassign(db, { notes, history, sources }, to);
    return { notes, history, sources };
  },

  async reassign(db: Queryable, ids: Omit<Moved, 'gainedKeys'>, to: string): Promise<void> {
    for (const [table, list] of [['finding_notes', ids.notes], ['finding_status_history', ids.history], ['finding_sources', ids.sources]] as const) {
      for (let i = 0; i < list.length; i += 500) await db(table).whereIn('id', list.slice(i, i + 500) as Array<string | number>).update({ finding_id: to });
    }
  },

  async record(db: Queryable, m: { tenantId: string; survivorId: string; mergedId: string; snapshot: MergeRow['snapshot']; moved: Moved; by: string; now: number }): Promise<void> {
    await db('finding_merges').insert({
      tenant_id: m.tenantId, survivor_id: m.survivorId, merged_id: m.mergedId, snapshot: JSON.stringify(m.snapshot), moved: JSON.stringify(m.moved), merged_by: m.by, merged_at: m.now,
    });
  },

  async deleteFinding(db: Queryable, id: string): Promise<void> {
    await db('findings').where({ id }).delete();
  },

  async restoreFinding(db: Queryable, row: Record<string, unknown>): Promise<void> {
    await db('findings').insert(row);
  },

  async dropKeys(db: Queryable, findingId: string, hashes: string[]): Promise<void> {
    for (let i = 0; i < hashes.length; i += 500) {
      const chunk = hashes.slice(i, i + 500);
      await db('finding_keys').where({ finding_id: findingId }).whereIn('key_hash', chunk).delete();
      // A CVE key's row in finding_cves goes with it.
      const cves = (await db('finding_keys').where({ finding_id: findingId, kind: 'cve' }).pluck('value')) as string[];
      await db('finding_cves').where({ finding_id: findingId }).modify((q) => { if (cves.length) q.whereNotIn('cve', cves); }).delete();
    }
  },

  /** The merges into this finding, newest first; `open`: only those not split yet. */
  async mergesInto(db: Queryable, survivorId: string, open: boolean): Promise<MergeRow[]> {
    const q = db('finding_merges').where({ survivor_id: survivorId }).orderBy('id', 'desc');
    if (open) q.whereNull('split_at');
    if (open && dialectOf(db) === 'mysql') q.forUpdate();
    const rows = (await q) as Array<Omit<MergeRow, 'snapshot' | 'moved'> & { snapshot: string; moved: string }>;
    return rows.map((r) => ({ ...r, id: Number(r.id), merged_at: Number(r.merged_at), split_at: r.split_at === null ? null : Number(r.split_at), snapshot: fromJson(r.snapshot, { row: {}, keys: [] }), moved: fromJson(r.moved, { notes: [], history: [], sources: [], gainedKeys: [] }) }));
  },

  async markSplit(db: Queryable, id: number, by: string, now: number): Promise<void> {
    await db('finding_merges').where({ id }).update({ split_by: by, split_at: now });
  },
};
