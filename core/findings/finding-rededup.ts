import type { Db, Queryable } from '../db/create-db.ts';
import type { Evidence } from '../domain/evidence.ts';
import { fromJson } from '../db/json.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { fingerprintOf } from './finding-fingerprint.ts';
import { findingIngestRepository } from './finding-ingest-repository.ts';
import { toolOf } from './finding-match.ts';
import { foldFindings } from './finding-merge-service.ts';
import { findingMergeRepository } from './finding-merge-repository.ts';
import { findingRededupRepository, type RededupRow } from './finding-rededup-repository.ts';

export interface RededupOptions {
  tenantId?: string;
  batchSize: number;
  /** Wait between batches, to spare a busy database. */
  pauseMs?: number;
  /** Start over even when a run of this scope was interrupted. */
  restart?: boolean;
  onBatch?: (progress: RededupReport) => void;
}

export interface RededupReport {
  scope: string;
  resumed: boolean;
  findings: number;
  keysAdded: number;
  merged: number;
  afterId: string;
  done: boolean;
}

const ACTOR = 'rededup';

/**
 * `rampart admin findings rededup`: derives every finding's fingerprint again under the
 * current rules (finding-fingerprint.ts) from what the finding holds (its rule id,
 * evidence and tags), adds the keys it lacks, and merges findings of one asset that now
 * share a CVE or a CWE at a location and were reported by different tools, into the
 * oldest (a merge that POST /api/findings/{id}/split can undo). Batches of findings in id
 * order, each one transaction with the cursor (migration 032): killed at any point, the
 * next run resumes after the last batch that committed. Running it again changes nothing.
 */
export async function rededupFindings(db: Db, options: RededupOptions): Promise<RededupReport> {
  const scope = options.tenantId ?? '*';
  let progress = await findingRededupRepository.progress(db, scope);
  const resumed = Boolean(progress && progress.done_at === null && !options.restart);
  if (!resumed) {
    await findingRededupRepository.start(db, scope, Date.now());
    progress = await findingRededupRepository.progress(db, scope);
  }
  const report: RededupReport = { scope, resumed, findings: progress!.findings, keysAdded: progress!.keys_added, merged: progress!.merged, afterId: progress!.after_id, done: false };
  for (;;) {
    const step = await retryOnDeadlock(() => db.transaction(async (trx) => {
      const rows = await findingRededupRepository.batch(trx, options.tenantId, report.afterId, options.batchSize);
      let keysAdded = 0;
      let merged = 0;
      for (const row of rows) {
        const outcome = await rededupOne(trx, row);
        keysAdded += outcome.keysAdded;
        merged += outcome.merged;
      }
      const afterId = rows.length ? rows[rows.length - 1]!.id : report.afterId;
      const done = rows.length < options.batchSize;
      await findingRededupRepository.advance(trx, scope, { afterId, findings: rows.length, keysAdded, merged, now: Date.now(), done });
      return { afterId, findings: rows.length, keysAdded, merged, done };
    }));
    Object.assign(report, { afterId: step.afterId, done: step.done, findings: report.findings + step.findings, keysAdded: report.keysAdded + step.keysAdded, merged: report.merged + step.merged });
    options.onBatch?.({ ...report });
    if (step.done) return report;
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}

async function rededupOne(trx: Queryable, row: RededupRow): Promise<{ keysAdded: number; merged: number }> {
  // Merged away earlier in this batch.
  if (!(await findingRededupRepository.exists(trx, row.id))) return { keysAdded: 0, merged: 0 };
  const ruleId = row.check_id ?? '';
  const derived = fingerprintOf({ ruleId, location: '', evidence: fromJson<Evidence>(row.evidence, {}), tags: fromJson<string[]>(row.tags, []) }).slice(1);
  const have = new Set((await findingMergeRepository.keys(trx, row.id)).map((k) => k.key_hash));
  const missing = derived.filter((k) => !have.has(k.hash));
  await findingIngestRepository.addKeys(trx, missing.map((key) => ({ tenantId: row.tenant_id, assetId: row.asset_id, findingId: row.id, key })));
  if (!derived.length) return { keysAdded: missing.length, merged: 0 };
  const hits = (await findingIngestRepository.keyHits(trx, derived.map((k) => ({ assetId: row.asset_id, hash: k.hash })))).filter((h) => h.finding_id !== row.id);
  if (!hits.length) return { keysAdded: missing.length, merged: 0 };
  const ids = [...new Set(hits.map((h) => h.finding_id))];
  const sources = await findingIngestRepository.sources(trx, [row.id, ...ids]);
  const toolsOf = (id: string) => new Set(sources.filter((s) => s.finding_id === id).map((s) => toolOf(s.rule_id)));
  // Only across tools, as at ingest: a finding joins the group when no tool reported both.
  const group = [row.id];
  const tools = toolsOf(row.id);
  for (const id of ids.sort()) {
    const theirs = toolsOf(id);
    if ([...theirs].some((t) => tools.has(t))) continue;
    group.push(id);
    for (const t of theirs) tools.add(t);
  }
  if (group.length < 2) return { keysAdded: missing.length, merged: 0 };
  const [keep, ...fold] = group.sort();
  await foldFindings(trx, row.tenant_id, keep!, fold, ACTOR);
  return { keysAdded: missing.length, merged: fold.length };
}
