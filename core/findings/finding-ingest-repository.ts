import type { Queryable } from '../db/create-db.ts';
import { insertBatched } from '../db/insert-batches.ts';
import type { FingerprintKey, KeyKind } from './finding-fingerprint.ts';

const CHUNK = 500;

/** What ingest needs of a finding a report matched. */
export interface IngestHit {
  id: string;
  asset_id: string;
  dedup_key: string | null;
  status: string;
  updated_at: number;
  last_seen: number | null;
  severity_rank: number;
  /** As stored (JSON text): a report whose evidence is the same needs no rewrite of it. */
  evidence: string;
}

/** A finding's key found on an asset: which finding holds it, and of which kind. */
export interface KeyHit {
  asset_id: string;
  key_hash: string;
  finding_id: string;
  kind: KeyKind;
}

export interface SourceRow {
  finding_id: string;
  rule_key: string;
  rule_id: string;
  last_seen: number;
}

export interface NewSource {
  tenantId: string;
  findingId: string;
  ruleKey: string;
  ruleId: string;
  location: string;
  origin: string;
  matchedOn: Array<{ kind: KeyKind; value: string }> | null;
  now: number;
}

/**
 * The tables of cross-tool dedup (migration 030): fingerprint keys, sources and CVE ids of
 * findings, and the columns of a finding that ingest moves (last_seen, evidence, a reopening).
 * Only core/findings writes them (test/architecture: a table is written by its owner).
 */
export const findingIngestRepository = {
  /** Findings on these assets holding any of these key hashes. */
  async keyHits(db: Queryable, pairs: Array<{ assetId: string; hash: string }>): Promise<KeyHit[]> {
    const byAsset = new Map<string, Set<string>>();
    for (const p of pairs) (byAsset.get(p.assetId) ?? byAsset.set(p.assetId, new Set()).get(p.assetId)!).add(p.hash);
    const out: KeyHit[] = [];
    for (const [assetId, set] of byAsset) {
      const hashes = [...set];
      for (let i = 0; i < hashes.length; i += CHUNK) {
        out.push(...((await db('finding_keys').where('asset_id', assetId).whereIn('key_hash', hashes.slice(i, i + CHUNK)).select('asset_id', 'key_hash', 'finding_id', 'kind')) as KeyHit[]));
      }
    }
    return out;
  },

  async findings(db: Queryable, ids: string[]): Promise<Map<string, IngestHit>> {
    const out = new Map<string, IngestHit>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = (await db('findings').whereIn('id', ids.slice(i, i + CHUNK)).select('id', 'asset_id', 'dedup_key', 'status', 'updated_at', 'last_seen', 'severity_rank', 'evidence')) as IngestHit[];
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  },

  async sources(db: Queryable, findingIds: string[]): Promise<SourceRow[]> {
    const out: SourceRow[] = [];
    for (let i = 0; i < findingIds.length; i += CHUNK) {
      out.push(...((await db('finding_sources').whereIn('finding_id', findingIds.slice(i, i + CHUNK)).select('finding_id', 'rule_key', 'rule_id', 'last_seen')) as SourceRow[]));
    }
    return out;
  },

  /**
   * A finding seen again: last_seen moves; `evidence` (when given) replaces what was stored;
   * `reopen` moves a resolved one back to open (the caller accounts for it with findingCounters.moved).
   */
  async seenAgain(db: Queryable, id: string, changes: { evidence: string | null; now: number; reopen: boolean }): Promise<void> {
    const update: Record<string, unknown> = { last_seen: changes.now };
    if (changes.evidence !== null) update.evidence = changes.evidence;
    if (changes.reopen) Object.assign(update, { status: 'open', updated_at: changes.now, updated_by: null });
    await db('findings').where({ id }).update(update);
  },

  async addSources(db: Queryable, sources: NewSource[]): Promise<void> {
    await insertBatched(db, 'finding_sources', sources.map((s) => ({
      tenant_id: s.tenantId, finding_id: s.findingId, rule_key: s.ruleKey, rule_id: s.ruleId.slice(0, 130), location: s.location.slice(0, 500),
      first_origin: s.origin.slice(0, 80), last_origin: s.origin.slice(0, 80), first_seen: s.now, last_seen: s.now, matched_on: s.matchedOn ? JSON.stringify(s.matchedOn) : null,
    })));
  },

  /** Moves last_seen of findings seen again with nothing else to change: one statement per 500. */
  async markSeen(db: Queryable, ids: readonly string[], now: number): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK) await db('findings').whereIn('id', ids.slice(i, i + CHUNK)).update({ last_seen: now });
  },

  /** Moves the sources (finding, rule key) a report came from again: one statement per 100 pairs (row-value IN is not portable). */
  async touchSources(db: Queryable, pairs: ReadonlyArray<{ findingId: string; ruleKey: string }>, origin: string, now: number): Promise<void> {
    for (let i = 0; i < pairs.length; i += 100) {
      const part = pairs.slice(i, i + 100);
      await db('finding_sources')
        .where((q) => {
          for (const p of part) q.orWhere((one) => one.where({ finding_id: p.findingId, rule_key: p.ruleKey }));
        })
        .update({ last_seen: now, last_origin: origin.slice(0, 80) });
    }
  },

  /** Adds keys (and the CVE ids among them) to findings; keys a finding already holds are left as they are. */
  async addKeys(db: Queryable, rows: Array<{ tenantId: string; assetId: string; findingId: string; key: FingerprintKey }>): Promise<void> {
    const keyRows = rows.map((r) => ({ tenant_id: r.tenantId, asset_id: r.assetId, finding_id: r.findingId, kind: r.key.kind, key_hash: r.key.hash, value: r.key.value }));
    await insertBatched(db, 'finding_keys', keyRows, (batch) => db('finding_keys').insert(batch).onConflict(['finding_id', 'key_hash']).ignore());
    const cves = rows.filter((r) => r.key.kind === 'cve').map((r) => ({ tenant_id: r.tenantId, finding_id: r.findingId, cve: r.key.value }));
    await insertBatched(db, 'finding_cves', cves, (batch) => db('finding_cves').insert(batch).onConflict(['finding_id', 'cve']).ignore());
  },
};

/** A source as the detail view reads it. */
export interface SourceDetailRow {
  rule_id: string;
  location: string;
  first_origin: string;
  last_origin: string;
  first_seen: number;
  last_seen: number;
  matched_on: string | null;
}

export const findingSourceReads = {
  async sourcesOf(db: Queryable, findingId: string): Promise<SourceDetailRow[]> {
    return (await db('finding_sources').where({ finding_id: findingId }).orderBy('id', 'asc')
      .select('rule_id', 'location', 'first_origin', 'last_origin', 'first_seen', 'last_seen', 'matched_on')) as SourceDetailRow[];
  },

  async keysOf(db: Queryable, findingId: string): Promise<Array<{ kind: KeyKind; value: string }>> {
    return (await db('finding_keys').where({ finding_id: findingId }).orderBy([{ column: 'kind' }, { column: 'value' }]).select('kind', 'value')) as Array<{ kind: KeyKind; value: string }>;
  },
};
