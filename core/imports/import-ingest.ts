import { changeClock } from '../db/change-clock.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { toJson } from '../db/json.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Outbox } from '../events/outbox.ts';
import { refreshAssetRisk } from '../findings/asset-risk.ts';
import { findingCounters, type StatusMove } from '../findings/finding-counters.ts';
import { findingHistoryRepository } from '../findings/finding-history-repository.ts';
import type { NewFinding } from '../findings/finding-repository.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { newId } from '../ids.ts';
import { dedupKey } from '../scans/scan-findings.ts';
import { scanFindingRepository } from '../scans/scan-finding-repository.ts';
import type { ImportedResult } from './import-result.ts';
import { importRepository } from './import-repository.ts';

export interface IngestContext {
  tenantId: string;
  /** Who imported: created_by of new findings, changed_by of reopenings. */
  actor: string;
  scanId: string | null;
  /** One timestamp for the whole import: a finding whose last_seen equals it was already seen in this file. */
  now: number;
  findings: FindingService;
  outbox: Outbox<EventPayloads>;
}

export interface IngestCounts {
  created: number;
  seenAgain: number;
  reopened: number;
  /** Results repeating one seen earlier in the same file (same check, place and asset). */
  duplicates: number;
}

export interface Mapped {
  result: ImportedResult;
  assetId: string;
}

const CHECK_ID_COLUMN = 130;

/**
 * Writes one batch of results in one transaction, the way the scan engine records a
 * check's findings (core/scans/scan-findings.ts): the dedup key is (asset, check id,
 * location); a new key is inserted through FindingService.insertPrepared (history,
 * finding.new, risk score, change clocks); a known key gets last_seen and the new
 * evidence; a `resolved` finding is reopened (history, finding.status_changed) unless the
 * file says it saw the problem before the finding was resolved. A unique violation means
 * another import wrote the same key meanwhile: the batch is simply run again.
 */
export async function ingestBatch(ctx: IngestContext, batch: readonly Mapped[]): Promise<IngestCounts> {
  const entries = new Map<string, Mapped & { key: string }>();
  let repeated = 0;
  for (const m of batch) {
    const key = dedupKey(m.result.checkId, m.result.location);
    const pair = `${m.assetId}\u0000${key}`;
    if (entries.has(pair)) repeated += 1;
    else entries.set(pair, { ...m, key });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await retryOnDeadlock(() => writeBatch(ctx, entries, repeated));
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
}

async function writeBatch(ctx: IngestContext, entries: Map<string, Mapped & { key: string }>, repeated: number): Promise<IngestCounts> {
  const counts: IngestCounts = { created: 0, seenAgain: 0, reopened: 0, duplicates: repeated };
  return ctx.outbox.transaction(async (uow) => {
    const existing = await importRepository.byDedupKeys(uow.trx, [...entries.values()].map((e) => ({ assetId: e.assetId, key: e.key })));
    const fresh: Array<NewFinding & { key: string; checkId: string }> = [];
    const seen: string[] = [];
    const reopenedAssets = new Set<string>();
    const moves: StatusMove[] = [];
    for (const [pair, { result, assetId, key }] of entries) {
      const hit = existing.get(pair);
      if (!hit) {
        fresh.push({
          key,
          checkId: result.checkId.slice(0, CHECK_ID_COLUMN),
          id: newId('fnd', ctx.now),
          tenantId: ctx.tenantId,
          assetId,
          scanId: ctx.scanId,
          title: result.title,
          description: result.description,
          remediation: result.remediation,
          severity: result.score.severity,
          cvss: result.score.cvss,
          cvssVector: result.score.cvssVector,
          status: result.initialStatus,
          evidence: result.evidence,
          references: result.references,
          tags: result.tags,
          createdBy: ctx.actor,
          discoveredAt: Math.min(result.observedAt ?? ctx.now, ctx.now),
          now: ctx.now,
        });
        continue;
      }
      if (hit.last_seen !== null && Number(hit.last_seen) === ctx.now) {
        counts.duplicates += 1;
        continue;
      }
      const reopen = hit.status === 'resolved' && (result.observedAt ?? ctx.now) > Number(hit.updated_at);
      await scanFindingRepository.seenAgain(uow.trx, hit.id, { evidence: toJson(result.evidence), now: ctx.now, reopen });
      seen.push(hit.id);
      counts.seenAgain += 1;
      if (!reopen) continue;
      counts.reopened += 1;
      reopenedAssets.add(assetId);
      moves.push({ tenantId: ctx.tenantId, findingId: hit.id, severityRank: Number(hit.severity_rank), from: 'resolved', to: 'open', now: ctx.now });
      await findingHistoryRepository.addChanges(uow.trx, [{ tenantId: ctx.tenantId, findingId: hit.id, oldStatus: 'resolved', newStatus: 'open', changedBy: ctx.actor, noteId: null, now: ctx.now }]);
      await uow.emit({
        tenantId: ctx.tenantId,
        kind: 'finding.status_changed',
        assetId,
        data: { finding_id: hit.id, old_status: 'resolved', new_status: 'open', asset_id: assetId, updated_by: ctx.actor, ...(ctx.scanId ? { scan_id: ctx.scanId } : {}), reason: 'found again by an import' },
      });
    }
    if (fresh.length) {
      await ctx.findings.insertPrepared(uow, fresh);
      await importRepository.setDedupMany(uow.trx, fresh.map((f) => ({ id: f.id, key: f.key, checkId: f.checkId })), ctx.now);
      counts.created = fresh.length;
    }
    if (reopenedAssets.size) {
      await refreshAssetRisk(uow.trx, reopenedAssets, ctx.now);
      await findingCounters.moved(uow.trx, moves);
      await changeClock.markChanged(uow.trx, ctx.tenantId, 'assets', ctx.now);
    }
    if (seen.length) await changeClock.markChanged(uow.trx, ctx.tenantId, 'findings', ctx.now);
    if (ctx.scanId) await scanFindingRepository.link(uow.trx, ctx.scanId, [...fresh.map((f) => f.id), ...seen]);
    return counts;
  });
}
