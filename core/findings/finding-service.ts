import type { Db, Queryable } from '../db/create-db.ts';
import { NotFoundError, RampartError, ValidationError } from '../errors.ts';
import type { Outbox, UnitOfWork } from '../events/outbox.ts';
import type { EventAsset, EventPayloads } from '../domain/event-payloads.ts';
import { newId } from '../ids.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { findingCounters } from './finding-counters.ts';
import { findingHistoryRepository, type FindingNote, type StatusChange } from './finding-history-repository.ts';
import { findingRepository, toFindingListItem, toFindingRecord, type FindingListItem, type FindingRecord, type NewFinding } from './finding-repository.ts';
import { findingPageRepository } from './finding-page-repository.ts';
import type { FindingFilters, FindingSort } from './finding-views.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { toIsoRequired } from '../time.ts';
import { refreshAssetRisk } from './asset-risk.ts';
import { prepareFinding, type FindingInput } from './finding-input.ts';
import { findingStats, type FindingStats } from './finding-stats.ts';
import { FindingMergeService } from './finding-merge-service.ts';
import { withEnrichment, type FindingEnrichment } from './finding-enrichment.ts';
import { feedsChangedAt } from '../feeds/feed-lookup.ts';
import { sourcesAndDedup, type FindingDedup, type FindingSource } from './finding-sources.ts';

export interface FindingDetail extends FindingRecord, FindingEnrichment {
  notes: FindingNote[];
  status_history: StatusChange[];
  sources: FindingSource[];
  dedup: FindingDedup;
}

export interface StatusUpdate {
  id: string;
  status: FindingStatus;
  updated_at: string;
  updated_by: string;
}

/**
 * 404 unless every given scan_id names one of the tenant's scans of the finding's own
 * asset: the same answer for another tenant's scan, a scan of another asset and no scan,
 * so nothing about other tenants is disclosed. Runs before any write.
 */
async function checkScans(db: Queryable, tenantId: string, findings: NewFinding[], bulk: boolean): Promise<void> {
  const scanIds = [...new Set(findings.map((f) => f.scanId).filter((id): id is string => id !== null))];
  if (!scanIds.length) return;
  const assetOf = await findingRepository.scanAssets(db, tenantId, scanIds);
  const details = findings.flatMap((f, i) => (f.scanId !== null && assetOf.get(f.scanId) !== f.assetId
    ? [{ field: bulk ? `findings.${i}.scan_id` : 'scan_id', message: `Scan ${f.scanId} of asset ${f.assetId} not found.` }]
    : []));
  if (details.length) throw new RampartError(404, 'not_found', `${details[0]!.message} scan_id must name a scan of the finding's asset.`, { details });
}

/**
 * Findings: import (single and bulk, without a scan), list, detail and triage. Every
 * write runs in one outbox transaction with its events, the history, the asset's
 * recomputed risk and the change clocks.
 */
export class FindingService {
  readonly #db: Db;
  readonly #outbox: Outbox<EventPayloads>;
  /** Manual merge and split (POST /api/findings/{id}/merge, /split). */
  readonly merges: FindingMergeService;

  constructor(db: Db, outbox: Outbox<EventPayloads>) {
    this.#db = db;
    this.#outbox = outbox;
    this.merges = new FindingMergeService(db, outbox);
  }

  /** When the tenant's finding list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'findings');
  }

  /** GET /api/findings/stats: counts by severity and status, and the 30-day trend. */
  stats(tenantId: string): Promise<FindingStats> {
    return findingStats(this.#db, tenantId);
  }

  /** A page of the list, each finding with its KEV/EPSS enrichment read from the feeds in force. */
  async list(tenantId: string, filters: FindingFilters, sort: FindingSort, page: PageRequest): Promise<Page<FindingListItem & FindingEnrichment>> {
    const result = await findingPageRepository.list(this.#db, tenantId, filters, sort, page);
    return { total: result.total, rows: await withEnrichment(this.#db, tenantId, result.rows.map(toFindingListItem)) };
  }

  /** The list's Last-Modified: the later of the findings' change clock and the last feed load (the enrichment changes with it). */
  async listChangedAtWithFeeds(tenantId: string): Promise<number | null> {
    const [changed, feeds] = await Promise.all([this.listChangedAt(tenantId), feedsChangedAt(this.#db)]);
    return changed === null && feeds === 0 ? null : Math.max(changed ?? 0, feeds);
  }

  /** The finding's updated_at or the last feed load, whichever is later (epoch ms); null when there is no such finding: for Last-Modified. */
  async updatedAt(tenantId: string, id: string): Promise<number | null> {
    const row = await findingRepository.findById(this.#db, tenantId, id);
    return row ? Math.max(Number(row.updated_at), await feedsChangedAt(this.#db)) : null;
  }

  async get(tenantId: string, id: string): Promise<FindingDetail> {
    const row = await findingRepository.findById(this.#db, tenantId, id);
    if (!row) throw new NotFoundError('Finding');
    const [notes, history, dedup] = await Promise.all([findingHistoryRepository.notes(this.#db, id), findingHistoryRepository.history(this.#db, id), sourcesAndDedup(this.#db, id)]);
    const [enriched] = await withEnrichment(this.#db, tenantId, [toFindingRecord(row)]);
    return { ...enriched!, notes, status_history: history, ...dedup };
  }

  /** Imports findings atomically: any invalid item (bad vector, unknown asset) rejects all. */
  async create(tenantId: string, actor: string, inputs: FindingInput[], bulk: boolean): Promise<FindingRecord[]> {
    const now = Date.now();
    const findings = inputs.map((input, i) => prepareFinding(input, { id: newId('fnd', now), tenantId, actor, now }, bulk ? `findings.${i}.` : ''));
    const ids = await retryOnDeadlock(() => this.#outbox.transaction(async (uow) => {
      await checkScans(uow.trx, tenantId, findings, bulk);
      await this.insertPrepared(uow, findings, bulk);
      return findings.map((f) => f.id);
    }));
    const rows = await findingRepository.findManyByIds(this.#db, tenantId, ids);
    const byId = new Map(rows.map((r) => [r.id, toFindingRecord(r)]));
    return ids.map((id) => byId.get(id)!);
  }

  /**
   * Inserts prepared findings in the caller's unit of work: history entries, one
   * finding.new event each, risk of the touched assets, change clocks. The scan
   * engine can call this with findings of a scan.
   */
  async insertPrepared(uow: UnitOfWork<EventPayloads>, findings: NewFinding[], bulk = true): Promise<void> {
    if (!findings.length) return;
    const tenantId = findings[0]!.tenantId;
    const assets = new Map<string, EventAsset>();
    for (const [i, f] of findings.entries()) {
      if (!assets.has(f.assetId)) {
        // Locked now: the inserts' key checks would take a shared lock on the asset that the
        // risk update below must upgrade, and two writers to one asset deadlock (MariaDB).
        const asset = await assetRepository.findById(uow.trx, tenantId, f.assetId, true);
        if (!asset) {
          const message = `Asset ${f.assetId} does not exist.`;
          throw new ValidationError(message, [{ field: bulk ? `findings.${i}.asset_id` : 'asset_id', message }], 'unknown_asset');
        }
        assets.set(f.assetId, { id: asset.id, name: asset.name, type: asset.type });
      }
    }
    await findingRepository.insertMany(uow.trx, findings);
    await findingHistoryRepository.addChanges(uow.trx, findings.map((f) => ({ tenantId, findingId: f.id, oldStatus: null, newStatus: f.status, changedBy: f.createdBy, noteId: null, now: f.now })));
    await uow.emitMany(findings.map((f) => ({
      tenantId,
      kind: 'finding.new' as const,
      assetId: f.assetId,
      data: { finding_id: f.id, title: f.title, severity: f.severity, cvss: f.cvss, asset: assets.get(f.assetId)!, scan_id: f.scanId },
    })));
    const now = findings[0]!.now;
    await refreshAssetRisk(uow.trx, assets.keys(), now);
    await changeClock.markChanged(uow.trx, tenantId, 'findings', now);
    await changeClock.markChanged(uow.trx, tenantId, 'assets', now);
  }

  /**
   * Any status to any status. A move records who and when in the history and emits
   * finding.status_changed; the note, if any, is appended to `notes` and linked from the
   * history entry. Setting the current status again only adds the note (no history
   * entry, no event).
   */
  async setStatus(tenantId: string, id: string, actor: string, status: FindingStatus, note?: string): Promise<StatusUpdate> {
    // The tenant's counter rows are shared by all its finding writes: a lock cycle on MariaDB is run again.
    return retryOnDeadlock(() => this.#outbox.transaction(async ({ trx, emit }) => {
      const finding = await findingRepository.findById(trx, tenantId, id, true);
      if (!finding) throw new NotFoundError('Finding');
      const now = Date.now();
      const noteId = note ? newId('note', now) : null;
      if (noteId) await findingHistoryRepository.addNote(trx, { id: noteId, tenantId, findingId: id, author: actor, text: note!, now });
      if (finding.status !== status) {
        await findingRepository.updateStatus(trx, id, status, actor, now);
        await findingHistoryRepository.addChanges(trx, [{ tenantId, findingId: id, oldStatus: finding.status, newStatus: status, changedBy: actor, noteId, now }]);
        await emit({
          tenantId,
          kind: 'finding.status_changed',
          assetId: finding.asset_id,
          data: { finding_id: id, old_status: finding.status, new_status: status, asset_id: finding.asset_id, updated_by: actor },
        });
        await refreshAssetRisk(trx, [finding.asset_id], now);
        await findingCounters.moved(trx, [{ tenantId, findingId: id, severityRank: Number(finding.severity_rank), from: finding.status, to: status, now }]);
        await changeClock.markChanged(trx, tenantId, 'assets', now);
      } else if (noteId) {
        await findingRepository.touch(trx, id, actor, now);
      }
      const changed = finding.status !== status || noteId !== null;
      if (changed) await changeClock.markChanged(trx, tenantId, 'findings', now);
      return {
        id,
        status,
        updated_at: toIsoRequired(changed ? now : finding.updated_at),
        updated_by: changed ? actor : (finding.updated_by ?? actor),
      };
    }));
  }
}
