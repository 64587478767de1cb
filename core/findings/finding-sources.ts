import type { Queryable } from '../db/create-db.ts';
import { fromJson } from '../db/json.ts';
import { toIsoRequired } from '../time.ts';
import { KEY_KINDS, type KeyKind } from './finding-fingerprint.ts';
import { findingSourceReads } from './finding-ingest-repository.ts';
import { findingMergeRepository } from './finding-merge-repository.ts';
import { toolOf } from './finding-match.ts';

export interface FingerprintKeyView {
  kind: KeyKind;
  value: string;
}

/** One tool rule that reported the finding (docs/finding-fingerprints.md). */
export interface FindingSource {
  /** The tool: `web_app`, `nuclei`, `zap`, `sarif:<tool name>`… */
  tool: string;
  /** The tool's own id of what it found (check, template, rule, alert). */
  rule_id: string;
  location: string;
  /** The scan (`scan:<id>`) or import (`import:<start time>`) that saw it first and last. */
  first_origin: string;
  last_origin: string;
  first_seen: string;
  last_seen: string;
  /** The keys it shared with the finding when it joined; null for the source that created the finding. */
  matched_on: FingerprintKeyView[] | null;
}

/** Why the finding's sources are one finding. */
export interface FindingDedup {
  /** The finding's fingerprint: every key its sources brought, strongest kind first. */
  keys: FingerprintKeyView[];
  /** The keys that joined a second or later source to it (empty when one rule reported it). */
  matched: FingerprintKeyView[];
  /** Findings merged into it by hand, newest first; split_at is set once a split undid the merge. */
  merges: Array<{ finding_id: string; merged_by: string; merged_at: string; split_by: string | null; split_at: string | null }>;
}

/** The sources and dedup reason of one finding, for the detail view. */
export async function sourcesAndDedup(db: Queryable, findingId: string): Promise<{ sources: FindingSource[]; dedup: FindingDedup }> {
  const [rows, keys, merges] = await Promise.all([findingSourceReads.sourcesOf(db, findingId), findingSourceReads.keysOf(db, findingId), findingMergeRepository.mergesInto(db, findingId, false)]);
  const sources = rows.map((r) => ({
    tool: toolOf(r.rule_id),
    rule_id: r.rule_id,
    location: r.location,
    first_origin: r.first_origin,
    last_origin: r.last_origin,
    first_seen: toIsoRequired(r.first_seen),
    last_seen: toIsoRequired(r.last_seen),
    matched_on: r.matched_on === null ? null : fromJson<FingerprintKeyView[]>(r.matched_on, []),
  }));
  const rank = (k: FingerprintKeyView) => KEY_KINDS.indexOf(k.kind);
  const matched = new Map<string, FingerprintKeyView>();
  for (const s of sources) for (const k of s.matched_on ?? []) matched.set(`${k.kind}\u0000${k.value}`, k);
  return {
    sources,
    dedup: {
      keys: [...keys].sort((a, b) => rank(a) - rank(b) || a.value.localeCompare(b.value)),
      matched: [...matched.values()],
      merges: merges.map((m) => ({ finding_id: m.merged_id, merged_by: m.merged_by, merged_at: toIsoRequired(m.merged_at), split_by: m.split_by, split_at: m.split_at === null ? null : toIsoRequired(m.split_at) })),
    },
  };
}
