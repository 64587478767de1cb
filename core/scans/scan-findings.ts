import { createHash } from 'node:crypto';
import type { UnitOfWork } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import type { FindingReport } from '../plugin-api/index.ts';
import { changeClock } from '../db/change-clock.ts';
import { findingHistoryRepository } from '../findings/finding-history-repository.ts';
import type { NewFinding } from '../findings/finding-repository.ts';
import { scanFindingRepository } from './scan-finding-repository.ts';
import { toJson } from '../db/json.ts';
import { refreshAssetRisk } from '../findings/asset-risk.ts';
import { findingCounters, type StatusMove } from '../findings/finding-counters.ts';
import { parseCvss31 } from '../findings/cvss.ts';
import type { FindingService } from '../findings/finding-service.ts';

export interface FoundBy {
  tenantId: string;
  assetId: string;
  assetName: string;
  scanId: string;
  checkId: string;
  now: number;
}

export interface RecordedFindings {
  created: number;
  seenAgain: number;
  reopened: number;
  /** Reports dropped because their CVSS vector was invalid (a check bug, logged by the caller). */
  rejected: string[];
}

/** The dedup key of a reported finding: the asset is its own column, this hashes check id and location. */
export function dedupKey(checkId: string, location: string): string {
  return createHash('sha256').update(`${checkId}\u0000${location}`).digest('hex');
}

/**
 * Upserts the findings one check reported, in the caller's unit of work. A finding
 * whose (asset, check id, location) is new is inserted through FindingService (history,
 * finding.new, risk, change clocks); one seen before gets last_seen (and fresh evidence)
 * instead of a duplicate, and no finding.new; a `resolved` one is reopened with a
 * history entry and finding.status_changed. Every finding seen is linked to the scan.
 */
export async function recordScanFindings(uow: UnitOfWork, findings: FindingService, by: FoundBy, reports: readonly FindingReport[]): Promise<RecordedFindings> {
  const result: RecordedFindings = { created: 0, seenAgain: 0, reopened: 0, rejected: [] };
  const byKey = new Map<string, { report: FindingReport; cvss: ReturnType<typeof parseCvss31> }>();
  for (const report of reports) {
    let cvss;
    try {
      cvss = parseCvss31(String(report.cvss_vector));
    } catch (err) {
      result.rejected.push(`${String(report.title).slice(0, 80)}: ${(err as Error).message}`);
      continue;
    }
    const key = dedupKey(by.checkId, String(report.location ?? by.assetName));
    if (!byKey.has(key)) byKey.set(key, { report, cvss });
  }
  if (!byKey.size) return result;
  const existing = await scanFindingRepository.byDedupKeys(uow.trx, by.assetId, [...byKey.keys()]);
  const fresh: Array<NewFinding & { key: string }> = [];
  const seenIds: string[] = [];
  let reopened = false;
  const moves: StatusMove[] = [];
  for (const [key, { report, cvss }] of byKey) {
    const hit = existing.get(key);
    if (!hit) {
      fresh.push({
        key,
        id: newId('fnd', by.now),
        tenantId: by.tenantId,
        assetId: by.assetId,
        scanId: by.scanId,
        title: String(report.title).slice(0, 300),
        description: String(report.description ?? ''),
        remediation: String(report.remediation ?? ''),
        severity: cvss.severity,
        cvss: cvss.score,
        cvssVector: cvss.vector,
        status: 'open',
        evidence: (report.evidence ?? {}) as NewFinding['evidence'],
        references: [...new Set((report.references ?? []).map(String))],
        tags: [...new Set((report.tags ?? []).map(String))],
        createdBy: null,
        discoveredAt: by.now,
        now: by.now,
      });
      continue;
    }
    const reopen = hit.status === 'resolved';
    await scanFindingRepository.seenAgain(uow.trx, hit.id, { evidence: toJson(report.evidence ?? {}), now: by.now, reopen });
    seenIds.push(hit.id);
    result.seenAgain += 1;
    if (reopen) {
      reopened = true;
      result.reopened += 1;
      moves.push({ tenantId: by.tenantId, findingId: hit.id, severityRank: Number(hit.severity_rank), from: 'resolved', to: 'open', now: by.now });
      const actor = `scan:${by.scanId}`.slice(0, 40);
      await findingHistoryRepository.addChanges(uow.trx, [{ tenantId: by.tenantId, findingId: hit.id, oldStatus: 'resolved', newStatus: 'open', changedBy: actor, noteId: null, now: by.now }]);
      await uow.emit({
        tenantId: by.tenantId,
        kind: 'finding.status_changed',
        assetId: by.assetId,
        data: { finding_id: hit.id, old_status: 'resolved', new_status: 'open', asset_id: by.assetId, updated_by: actor, scan_id: by.scanId, reason: 'found again by a scan' },
      });
    }
  }
  if (fresh.length) {
    await findings.insertPrepared(uow, fresh);
    for (const f of fresh) await scanFindingRepository.setDedup(uow.trx, f.id, f.key, by.checkId, by.now);
    result.created = fresh.length;
  }
  if (reopened) await refreshAssetRisk(uow.trx, [by.assetId], by.now);
  await findingCounters.moved(uow.trx, moves);
  await scanFindingRepository.link(uow.trx, by.scanId, [...fresh.map((f) => f.id), ...seenIds]);
  if (seenIds.length) await changeClock.markChanged(uow.trx, by.tenantId, 'findings', by.now);
  if (reopened) await changeClock.markChanged(uow.trx, by.tenantId, 'assets', by.now);
  return result;
}
