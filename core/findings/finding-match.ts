import type { Queryable } from '../db/create-db.ts';
import type { FingerprintKey } from './finding-fingerprint.ts';
import { findingIngestRepository, type IngestHit } from './finding-ingest-repository.ts';
import type { IngestReport } from './finding-ingest.ts';

/** A report with its fingerprint; `keys[0]` is its rule key. */
export interface Fingerprinted {
  report: IngestReport;
  keys: FingerprintKey[];
}

/**
 * Where a report lands: `new` (a finding of its own), `seen` (its rule already reports a
 * finding), `joined` (another tool's finding shares a CVE or a CWE at its location:
 * `matched` says which keys), `duplicate` (the same rule, place and asset already taken
 * at this instant: earlier in the call, or in an earlier batch of one import).
 */
export interface Placed extends Fingerprinted {
  kind: 'new' | 'seen' | 'joined' | 'duplicate';
  findingId: string;
  /** The stored finding it landed on; null for a finding created in this call. */
  hit: IngestHit | null;
  matched: FingerprintKey[];
}

interface Target {
  id: string;
  hit: IngestHit | null;
  /** The tools among its sources: a tool's distinct rules stay distinct findings. */
  tools: Set<string>;
  /** Its sources' rule keys, with when each was last seen. */
  rules: Map<string, number>;
  hashes: Set<string>;
}

/** The tool of a rule id: its first segment, and for SARIF the tool the run names (`sarif:Semgrep`). */
export function toolOf(ruleId: string): string {
  const parts = ruleId.split(':');
  return parts[0] === 'sarif' ? parts.slice(0, 2).join(':') : parts[0]!;
}

/**
 * Matches reports against the findings of their assets and against each other, strongest
 * key first: the rule key (same tool, rule and place), then a CVE, then a CWE at the same
 * location — these two only across tools. Reads only; finding-ingest.ts writes.
 */
export async function matchReports(db: Queryable, now: number, items: Fingerprinted[], newId: () => string): Promise<Placed[]> {
  const hits = await findingIngestRepository.keyHits(db, items.flatMap((i) => i.keys.map((k) => ({ assetId: i.report.assetId, hash: k.hash }))));
  const ids = [...new Set(hits.map((h) => h.finding_id))].sort();
  const [stored, sources] = await Promise.all([findingIngestRepository.findings(db, ids), findingIngestRepository.sources(db, ids)]);
  const targets = new Map<string, Target>(ids.filter((id) => stored.has(id)).map((id) => [id, { id, hit: stored.get(id)!, tools: new Set(), rules: new Map(), hashes: new Set() }]));
  for (const s of sources) {
    const t = targets.get(s.finding_id);
    if (!t) continue;
    t.tools.add(toolOf(s.rule_id));
    t.rules.set(s.rule_key, Number(s.last_seen));
  }
  const index = new Map<string, Target[]>();
  const register = (assetId: string, hash: string, t: Target): void => {
    t.hashes.add(hash);
    const at = index.get(`${assetId}\u0000${hash}`) ?? index.set(`${assetId}\u0000${hash}`, []).get(`${assetId}\u0000${hash}`)!;
    if (!at.includes(t)) at.push(t);
  };
  for (const h of hits) if (targets.has(h.finding_id)) register(h.asset_id, h.key_hash, targets.get(h.finding_id)!);

  const placed: Placed[] = [];
  for (const item of items) {
    const { assetId } = item.report;
    const rule = item.keys[0]!;
    const tool = toolOf(item.report.ruleId);
    const candidates = (key: FingerprintKey, crossTool: boolean) => (index.get(`${assetId}\u0000${key.hash}`) ?? []).filter((t) => !crossTool || !t.tools.has(tool));
    let target = candidates(rule, false)[0];
    let kind: Placed['kind'] = 'seen';
    if (target && target.rules.get(rule.hash) === now) kind = 'duplicate';
    // A rule key without its source row (never written by ingest; kept for safety) joins as a source.
    if (target && !target.rules.has(rule.hash)) kind = 'joined';
    if (!target) {
      for (const k of ['cve', 'cwe_location'] as const) {
        target = item.keys.filter((key) => key.kind === k).flatMap((key) => candidates(key, true))[0];
        if (target) break;
      }
      kind = target ? 'joined' : 'new';
    }
    if (!target) target = { id: newId(), hit: null, tools: new Set(), rules: new Map(), hashes: new Set() };
    const matched = kind === 'joined' ? item.keys.filter((k) => target!.hashes.has(k.hash)) : [];
    target.tools.add(tool);
    target.rules.set(rule.hash, now);
    for (const k of item.keys) register(assetId, k.hash, target);
    placed.push({ ...item, kind, findingId: target.id, hit: target.hit, matched });
  }
  return placed;
}
