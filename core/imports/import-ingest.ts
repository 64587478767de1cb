import { isUniqueViolation } from '../db/db-errors.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Outbox } from '../events/outbox.ts';
import { ingestReports } from '../findings/finding-ingest.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { scanFindingRepository } from '../scans/scan-finding-repository.ts';
import type { ImportedResult } from './import-result.ts';

export interface IngestContext {
  tenantId: string;
  /** Who imported: created_by of new findings, changed_by of reopenings. */
  actor: string;
  scanId: string | null;
  /** One timestamp for the whole import: a source whose last_seen equals it was already seen in this file. */
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

/**
 * Writes one batch of results in one transaction through the one ingest path of
 * core/findings (finding-ingest.ts): fingerprint, match against the assets' findings
 * (same rule and place; across tools, a CVE or a CWE at the same location), create or
 * update, history and events. A result seen before the finding was resolved does not
 * reopen it. The import is one source, `import:<its start time>`. A unique violation
 * means another import wrote the same key meanwhile: the batch is simply run again.
 */
export async function ingestBatch(ctx: IngestContext, batch: readonly Mapped[]): Promise<IngestCounts> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await retryOnDeadlock(() => writeBatch(ctx, batch));
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
}

async function writeBatch(ctx: IngestContext, batch: readonly Mapped[]): Promise<IngestCounts> {
  return ctx.outbox.transaction(async (uow) => {
    const source = { tenantId: ctx.tenantId, scanId: ctx.scanId, origin: `import:${new Date(ctx.now).toISOString()}`, actor: ctx.actor, changedBy: ctx.actor, reason: 'found again by an import', now: ctx.now };
    const outcome = await ingestReports(uow, ctx.findings, source, batch.map(({ result: r, assetId }) => ({
      assetId,
      ruleId: r.checkId,
      location: r.location,
      title: r.title,
      description: r.description,
      remediation: r.remediation,
      severity: r.score.severity,
      cvss: r.score.cvss,
      cvssVector: r.score.cvssVector,
      status: r.initialStatus,
      evidence: r.evidence,
      references: r.references,
      tags: r.tags,
      observedAt: r.observedAt,
    })));
    if (ctx.scanId) await scanFindingRepository.link(uow.trx, ctx.scanId, outcome.findingIds);
    return { created: outcome.created, seenAgain: outcome.seenAgain, reopened: outcome.reopened, duplicates: outcome.duplicates };
  });
}
