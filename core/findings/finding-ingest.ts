import type { UnitOfWork } from '../events/outbox.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Evidence } from '../domain/evidence.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import type { Severity } from '../domain/severity.ts';
import { changeClock } from '../db/change-clock.ts';
import { toJson } from '../db/json.ts';
import { newId } from '../ids.ts';
import { refreshAssetRisk } from './asset-risk.ts';
import { findingCounters, type StatusMove } from './finding-counters.ts';
import { fingerprintOf, type FingerprintKey } from './finding-fingerprint.ts';
import { findingHistoryRepository } from './finding-history-repository.ts';
import { findingIngestRepository } from './finding-ingest-repository.ts';
import type { FindingService } from './finding-service.ts';
import { matchReports, type Placed } from './finding-match.ts';

/** One problem a source reported on one asset, scored and ready to become (or update) a finding. */
export interface IngestReport {
  assetId: string;
  /** The tool's rule, check, template or plugin id (`web_app:exposed-files`, `nuclei:laravel-env`). */
  ruleId: string;
  /** Where, in the tool's own notation: with the rule id, the rule key. */
  location: string;
  title: string;
  description: string;
  remediation: string;
  severity: Severity;
  cvss: number;
  cvssVector: string;
  /** The status a new finding starts in. */
  status: FindingStatus;
  evidence: Evidence;
  references: string[];
  tags: string[];
  /** When the tool saw it, if it says: a resolved finding reopens only for a sighting after its resolution. */
  observedAt: number | null;
}

/** Who reports: a scan or an import. */
export interface IngestSource {
  tenantId: string;
  scanId: string | null;
  /** `scan:<id>` or `import:<format>`: recorded on the finding's sources. */
  origin: string;
  /** created_by of new findings. */
  actor: string | null;
  /** changed_by of a reopening, and the reason its event gives. */
  changedBy: string;
  reason: string;
  now: number;
}

export interface IngestOutcome {
  created: number;
  /** Reports that matched a finding already stored (or created by another source in the same call). */
  seenAgain: number;
  reopened: number;
  /** Reports repeating one already taken at this instant (same rule, place and asset). */
  duplicates: number;
  /** Every finding a report landed on: for the scan's link to what it saw. */
  findingIds: string[];
}

/**
 * The one way reports from scans, imports and any later source become findings, in the
 * caller's unit of work. Each report's fingerprint (finding-fingerprint.ts) is matched
 * against the asset's findings (finding-match.ts): a new problem is inserted through
 * FindingService.insertPrepared (history, finding.new, risk, counters, search words); a
 * known one gets last_seen, a source row (new, or its last_seen moved) and any keys it
 * lacked; a resolved one seen after its resolution is reopened (history,
 * finding.status_changed, counters, risk).
 */
export async function ingestReports(uow: UnitOfWork<EventPayloads>, findings: FindingService, source: IngestSource, reports: readonly IngestReport[]): Promise<IngestOutcome> {
  const outcome: IngestOutcome = { created: 0, seenAgain: 0, reopened: 0, duplicates: 0, findingIds: [] };
  if (!reports.length) return outcome;
  const placed = await matchReports(uow.trx, source.now, reports.map((r) => ({ report: r, keys: fingerprintOf({ ruleId: r.ruleId, location: r.location, evidence: r.evidence, tags: r.tags }) })), () => newId('fnd', source.now));
  const { now, tenantId } = source;
  const fresh = placed.filter((p) => p.kind === 'new');
  await findings.insertPrepared(uow, fresh.map((p) => ({
    id: p.findingId, tenantId, assetId: p.report.assetId, scanId: source.scanId, title: p.report.title.slice(0, 300), description: p.report.description,
    remediation: p.report.remediation, severity: p.report.severity, cvss: p.report.cvss, cvssVector: p.report.cvssVector, status: p.report.status,
    evidence: p.report.evidence, references: p.report.references, tags: p.report.tags, createdBy: source.actor,
    discoveredAt: Math.min(p.report.observedAt ?? now, now), now, dedupKey: p.keys[0]!.hash, checkId: p.report.ruleId,
  })));
  outcome.created = fresh.length;
  const moves: StatusMove[] = [];
  const reopenedAssets = new Set<string>();
  const touched = new Set<string>();
  const seenOnly: string[] = [];
  const sourcesSeen = new Map<string, { findingId: string; ruleKey: string }>();
  for (const p of placed) {
    if (p.kind === 'duplicate') outcome.duplicates += 1;
    if (p.kind === 'joined' || p.kind === 'seen') outcome.seenAgain += 1;
    if (p.kind === 'duplicate' || p.kind === 'new') continue;
    if (p.kind === 'seen') sourcesSeen.set(`${p.findingId} ${p.keys[0]!.hash}`, { findingId: p.findingId, ruleKey: p.keys[0]!.hash });
    const hit = p.hit;
    if (!hit || touched.has(hit.id)) continue;
    touched.add(hit.id);
    const reopen = hit.status === 'resolved' && (p.report.observedAt ?? now) > Number(hit.updated_at);
    // Evidence is the creating rule's: another tool's report adds a source, not its own evidence.
    const evidence = hit.dedup_key === p.keys[0]!.hash ? toJson(p.report.evidence) : null;
    // The common case of a re-import, nothing but last_seen to move, is written in batches after the loop.
    if (!reopen && (evidence === null || evidence === hit.evidence)) {
      seenOnly.push(hit.id);
      continue;
    }
    await findingIngestRepository.seenAgain(uow.trx, hit.id, { evidence, now, reopen });
    if (!reopen) continue;
    outcome.reopened += 1;
    reopenedAssets.add(hit.asset_id);
    moves.push({ tenantId, findingId: hit.id, severityRank: Number(hit.severity_rank), from: 'resolved', to: 'open', now });
    await findingHistoryRepository.addChanges(uow.trx, [{ tenantId, findingId: hit.id, oldStatus: 'resolved', newStatus: 'open', changedBy: source.changedBy, noteId: null, now }]);
    await uow.emit({
      tenantId,
      kind: 'finding.status_changed',
      assetId: hit.asset_id,
      data: { finding_id: hit.id, old_status: 'resolved', new_status: 'open', asset_id: hit.asset_id, updated_by: source.changedBy, ...(source.scanId ? { scan_id: source.scanId } : {}), reason: source.reason },
    });
  }
  await findingIngestRepository.markSeen(uow.trx, seenOnly, now);
  await findingIngestRepository.touchSources(uow.trx, [...sourcesSeen.values()], source.origin, now);
  await writeFingerprints(uow, source, placed);
  if (reopenedAssets.size) {
    await refreshAssetRisk(uow.trx, reopenedAssets, now);
    await findingCounters.moved(uow.trx, moves);
    await changeClock.markChanged(uow.trx, tenantId, 'assets', now);
  }
  if (placed.some((p) => p.kind === 'seen' || p.kind === 'joined')) await changeClock.markChanged(uow.trx, tenantId, 'findings', now);
  outcome.findingIds = [...new Set(placed.filter((p) => p.kind !== 'duplicate').map((p) => p.findingId))];
  return outcome;
}

/** Sources for new findings and for joining reports, and every key each report brought. */
async function writeFingerprints(uow: UnitOfWork<EventPayloads>, source: IngestSource, placed: Placed[]): Promise<void> {
  const joins = placed.filter((p) => p.kind === 'new' || p.kind === 'joined');
  await findingIngestRepository.addSources(uow.trx, joins.map((p) => ({
    tenantId: source.tenantId, findingId: p.findingId, ruleKey: p.keys[0]!.hash, ruleId: p.report.ruleId, location: p.report.location,
    origin: source.origin, matchedOn: p.kind === 'joined' ? p.matched.map((k: FingerprintKey) => ({ kind: k.kind, value: k.value })) : null, now: source.now,
  })));
  // Keys of a rule seen again too: a report may name a CVE its earlier reports did not.
  const keyed = placed.filter((p) => p.kind !== 'duplicate');
  await findingIngestRepository.addKeys(uow.trx, keyed.flatMap((p) => p.keys.map((key) => ({ tenantId: source.tenantId, assetId: p.report.assetId, findingId: p.findingId, key }))));
}
