import type { Queryable } from '../db/create-db.ts';
import type { Severity } from '../domain/severity.ts';
import type { FindingSummary } from '../domain/severity.ts';
import { SEVERITY_RANK, severityOfRank } from '../domain/severity.ts';
import { findingRepository, type FindingRow } from '../findings/finding-repository.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { insertBatched } from '../db/insert-batches.ts';

/** What dedup needs of an existing finding. */
export interface DedupHit {
  id: string;
  status: string;
  dedup_key: string;
  severity_rank: number;
}

/**
 * The scan side of findings: the dedup key columns (added by migration 009), the link
 * of a scan to every finding it saw (new or seen again), and the scan results list.
 * Inserting a finding goes through FindingService.insertPrepared (history, events, risk).
 */
export const scanFindingRepository = {
  async byDedupKeys(db: Queryable, assetId: string, keys: string[]): Promise<Map<string, DedupHit>> {
    if (!keys.length) return new Map();
    const rows = (await db('findings').where({ asset_id: assetId }).whereIn('dedup_key', keys).select('id', 'status', 'dedup_key', 'severity_rank')) as DedupHit[];
    return new Map(rows.map((r) => [r.dedup_key, r]));
  },

  async setDedup(db: Queryable, id: string, dedupKey: string, checkId: string, now: number): Promise<void> {
    await db('findings').where({ id }).update({ dedup_key: dedupKey, check_id: checkId, last_seen: now });
  },

  /**
   * A finding seen again: last_seen moves; evidence is refreshed to what was seen now;
   * `reopen` moves a resolved one back to open (the caller accounts for it with
   * findingCounters.moved, after the asset's risk update).
   */
  async seenAgain(db: Queryable, id: string, changes: { evidence: string; now: number; reopen: boolean }): Promise<void> {
    const update: Record<string, unknown> = { last_seen: changes.now, evidence: changes.evidence };
    if (changes.reopen) Object.assign(update, { status: 'open', updated_at: changes.now, updated_by: null });
    await db('findings').where({ id }).update(update);
  },

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
