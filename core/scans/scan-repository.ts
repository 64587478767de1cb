import type { Knex } from 'knex';
import type { Queryable } from '../db/create-db.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type { ScanFilters, ScanPriority, ScanStatus } from './scan-fields.ts';

// core/scans/scan-scheduler.ts still imports ScanPriority from here.
export type { ScanPriority } from './scan-fields.ts';

export const PRIORITY_RANK: Record<ScanPriority, number> = { low: 0, normal: 1, high: 2 };

export interface ScanRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  active_asset_id: string | null;
  scan_type: string;
  status: ScanStatus;
  priority: ScanPriority;
  priority_rank: number;
  options: string;
  callback_url: string | null;
  callback_secret_sealed: string | null;
  schedule_id: string | null;
  progress: number;
  current_phase: string | null;
  eta_seconds: number | null;
  estimated_seconds: number | null;
  checks_total: number;
  checks_done: number;
  /** Checks that ran and failed (error or timeout); see 017-scan-check-outcomes. */
  checks_failed?: number;
  finding_count: number;
  finding_summary: string;
  error: string | null;
  claims: number;
  locked_by: string | null;
  locked_until: number;
  deadline_at: number | null;
  progress_emitted_at: number;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
  /** Joined from assets in reads that need it. */
  asset_name?: string;
  asset_type?: string;
}

const TERMINAL: ScanStatus[] = ['completed', 'failed', 'cancelled'];

/** The scan queue: queued scans by priority then age; a running scan whose lease expired is resumed first. */
const scanQueue = new LeaseQueue({
  table: 'scans',
  ready: { status: 'queued' },
  held: { status: 'running' },
  reclaim: 'first',
  priorityColumn: 'priority_rank',
  order: [{ column: 'created_at' }, { column: 'id' }],
  onClaim: (db, now) => ({ status: 'running', claims: db.raw('claims + 1'), started_at: db.raw('coalesce(started_at, ?)', [now]), updated_at: now }),
  // A scan handed back at shutdown is resumed at once, and that claim is not counted.
  onRelease: (db) => ({ claims: db.raw('claims - 1') }),
  // A cancel ends the row itself; its worker stops at the next cancel read (or at once, in the API's process).
  cancelWhen: { status: 'cancelled' },
});

export const scanRepository = {
  async insert(db: Queryable, row: Omit<ScanRow, 'asset_name'>): Promise<void> {
    await db('scans').insert(row);
  },

  withAsset(q: Knex.QueryBuilder): Knex.QueryBuilder {
    return q.join('assets', 'assets.id', 'scans.asset_id').select('scans.*', 'assets.name as asset_name', 'assets.type as asset_type');
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<ScanRow | null> {
    return ((await this.withAsset(db('scans').where({ 'scans.tenant_id': tenantId, 'scans.id': id })).first()) as ScanRow | undefined) ?? null;
  },

  /** Any tenant's scan, for the worker. */
  async findAny(db: Queryable, id: string): Promise<ScanRow | null> {
    return ((await this.withAsset(db('scans').where({ 'scans.id': id })).first()) as ScanRow | undefined) ?? null;
  },

  async activeForAsset(db: Queryable, assetId: string): Promise<ScanRow | null> {
    return ((await db('scans').where({ active_asset_id: assetId }).first()) as ScanRow | undefined) ?? null;
  },

  async list(db: Queryable, tenantId: string, f: ScanFilters, page: PageRequest): Promise<Page<ScanRow>> {
    const q = db('scans').where('scans.tenant_id', tenantId);
    if (f.status) q.where('scans.status', f.status);
    if (f.asset_id) q.where('scans.asset_id', f.asset_id);
    if (f.scan_type) q.where('scans.scan_type', f.scan_type);
    if (f.from !== undefined) q.where('scans.created_at', '>=', f.from);
    if (f.to !== undefined) q.where('scans.created_at', '<=', f.to);
    return paginate<ScanRow>(this.withAsset(q), page, (x) => x.orderBy([{ column: 'scans.created_at', order: 'desc' }, { column: 'scans.id', order: 'desc' }]));
  },

  /**
   * Claims one scan for `token`: first a running scan whose lease expired (its worker
   * died), then the best queued one (priority, then age).
   */
  async claim(db: Queryable, token: string, now: number, leaseMs: number): Promise<ScanRow | null> {
    const [id] = await scanQueue.claim(db, { token, now, leaseMs });
    return id ? this.findAny(db, id) : null;
  },

  /** The queue the scan worker runs (core/work/lease-worker.ts). */
  queue: scanQueue,

  /** The bare row (no asset join). */
  async row(db: Queryable, id: string): Promise<ScanRow | null> {
    return ((await db('scans').where({ id }).first()) as ScanRow | undefined) ?? null;
  },

  /** When the scan's last scan.progress event was emitted (0: never). */
  async progressEmittedAt(db: Queryable, id: string): Promise<number> {
    const row = (await db('scans').where({ id }).first('progress_emitted_at')) as { progress_emitted_at: number | string } | undefined;
    return Number(row?.progress_emitted_at ?? 0);
  },

  async statusOf(db: Queryable, id: string): Promise<ScanStatus | null> {
    const row = (await db('scans').where({ id }).first('status')) as { status: ScanStatus } | undefined;
    return row?.status ?? null;
  },

  /** Updates a scan this worker still runs; returns false when it is no longer running under `token`. */
  async updateRunning(db: Queryable, id: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return scanQueue.update(db, id, token, changes);
  },

  async update(db: Queryable, id: string, changes: Record<string, unknown>): Promise<void> {
    await db('scans').where({ id }).update(changes);
  },

  /** queued|running -> cancelled; false when the scan had already finished. */
  async cancel(db: Queryable, tenantId: string, id: string, now: number): Promise<boolean> {
    const n = await db('scans')
      .where({ tenant_id: tenantId, id })
      .whereIn('status', ['queued', 'running'])
      .update({ status: 'cancelled', active_asset_id: null, completed_at: now, updated_at: now, current_phase: 'cancelled', eta_seconds: 0 });
    return n > 0;
  },

  isTerminal(status: ScanStatus): boolean {
    return TERMINAL.includes(status);
  },
};
