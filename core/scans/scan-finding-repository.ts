import type { Queryable } from '../db/create-db.ts';
import type { Severity } from '../domain/severity.ts';
import type { FindingSummary } from '../domain/severity.ts';
import { SEVERITY_RANK, severityOfRank } from '../domain/severity.ts';
import { findingRepository, type FindingRow } from '../findings/finding-repository.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { insertBatched } from '../db/insert-batches.ts';

/**
 * The scan side of findings: the link of a scan to every finding it saw (new or seen
 * again) and the scan results list. Findings themselves are written by core/findings
 * (finding-ingest.ts), the only feature that writes the findings tables.
 */
export const scanFindingRepository = {
  async link(db: Queryable, scanId: string, findingIds: string[]): Promise<void> {
    if (!findingIds.length) return;
    const rows = findingIds.map((finding_id) => ({ scan_id: scanId, finding_id }));
    await insertBatched(db, 'scan_findings', rows, (batch) => db('scan_findings').insert(batch).onConflict(['scan_id', 'finding_id']).ignore());
  },

  /** Findings the scan saw, by severity. */
  async summary(db: Queryable, scanId: string): Promise<{ summary: FindingSummary; total: number }> {
    const rows = (await db('scan_findings')
      .join('findings', 'findings.id', 'scan_findings.finding_id')
      .where('scan_findings.scan_id', scanId)
      .groupBy('findings.severity_rank')
      .select('findings.severity_rank', db.raw('count(*) as n'))) as Array<{ severity_rank: number; n: number | string }>;
    const summary: FindingSummary = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
    let total = 0;
    for (const r of rows) {
      summary[severityOfRank(Number(r.severity_rank))] += Number(r.n);
      total += Number(r.n);
    }
    return { summary, total };
  },

  async results(db: Queryable, tenantId: string, scanId: string, severity: Severity[] | undefined, page: PageRequest): Promise<Page<FindingRow>> {
    const base = () => {
      const q = db('findings').join('scan_findings', 'scan_findings.finding_id', 'findings.id').where({ 'scan_findings.scan_id': scanId, 'findings.tenant_id': tenantId });
      if (severity?.length) q.whereIn('findings.severity_rank', [...new Set(severity.map((s) => SEVERITY_RANK[s]))]);
      return q;
    };
    const countRow = (await base().count({ n: '*' }).first()) as { n: number | string } | undefined;
    const rows = (await findingRepository
      .withAsset(base())
      .orderBy([{ column: 'findings.severity_rank', order: 'desc' }, { column: 'findings.cvss_tenths', order: 'desc' }, { column: 'findings.id', order: 'asc' }])
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)) as FindingRow[];
    return { total: Number(countRow?.n ?? 0), rows };
  },
};
