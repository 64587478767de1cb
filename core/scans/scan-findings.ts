import type { UnitOfWork } from '../events/outbox.ts';
import type { FindingReport } from '../plugin-api/index.ts';
import { ingestReports, type IngestReport } from '../findings/finding-ingest.ts';
import { parseCvss31 } from '../findings/cvss.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { scanFindingRepository } from './scan-finding-repository.ts';

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

/**
 * Records the findings one check reported, in the caller's unit of work, through the one
 * ingest path of core/findings (finding-ingest.ts: fingerprint, match, create or update,
 * history, events, counters). Reports with an invalid CVSS vector are dropped and named;
 * every finding the check landed on is linked to the scan.
 */
export async function recordScanFindings(uow: UnitOfWork, findings: FindingService, by: FoundBy, reports: readonly FindingReport[]): Promise<RecordedFindings> {
  const result: RecordedFindings = { created: 0, seenAgain: 0, reopened: 0, rejected: [] };
  const valid: IngestReport[] = [];
  for (const report of reports) {
    let cvss;
    try {
      cvss = parseCvss31(String(report.cvss_vector));
    } catch (err) {
      result.rejected.push(`${String(report.title).slice(0, 80)}: ${(err as Error).message}`);
      continue;
    }
    valid.push({
      assetId: by.assetId,
      ruleId: by.checkId,
      location: String(report.location ?? by.assetName),
      title: String(report.title).slice(0, 300),
      description: String(report.description ?? ''),
      remediation: String(report.remediation ?? ''),
      severity: cvss.severity,
      cvss: cvss.score,
      cvssVector: cvss.vector,
      status: 'open',
      evidence: (report.evidence ?? {}) as IngestReport['evidence'],
      references: [...new Set((report.references ?? []).map(String))],
      tags: [...new Set((report.tags ?? []).map(String))],
      observedAt: null,
    });
  }
  if (!valid.length) return result;
  const actor = `scan:${by.scanId}`.slice(0, 40);
  const outcome = await ingestReports(uow, findings, { tenantId: by.tenantId, scanId: by.scanId, origin: `scan:${by.scanId}`, actor: null, changedBy: actor, reason: 'found again by a scan', now: by.now }, valid);
  await scanFindingRepository.link(uow.trx, by.scanId, outcome.findingIds);
  return { ...result, created: outcome.created, seenAgain: outcome.seenAgain, reopened: outcome.reopened };
}
