import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type { ExportFormat } from './export-formats.ts';
import type { ExportFilters, ExportJob, ExportStatus } from './export-views.ts';

interface ExportRow {
  id: string; tenant_id: string; format: ExportFormat; filters: string; status: ExportStatus; total_rows: number;
  row_count: number | null; size_bytes: number | string | null; file_name: string | null; error: string | null;
  requested_by: string | null; created_at: number; started_at: number | null; completed_at: number | null;
  expires_at: number | null; updated_at: number;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));

function toJob(r: ExportRow): ExportJob {
  return {
    id: r.id, tenantId: r.tenant_id, format: r.format, filters: fromJson<ExportFilters>(r.filters, {}), status: r.status,
    totalRows: Number(r.total_rows), rowCount: num(r.row_count), sizeBytes: num(r.size_bytes), fileName: r.file_name,
    error: r.error, requestedBy: r.requested_by, createdAt: Number(r.created_at), startedAt: num(r.started_at),
    completedAt: num(r.completed_at), expiresAt: num(r.expires_at), updatedAt: Number(r.updated_at),
  };
}

/** Queued exports by age; a running one whose lease lapsed (its worker died) takes its turn by age too. */
const exportQueue = new LeaseQueue({
  table: 'finding_exports',
  ready: { status: 'queued' },
  held: { status: 'running' },
  reclaim: 'inOrder',
  order: [{ column: 'created_at', order: 'asc' }],
  onClaim: (_db, now) => ({ status: 'running', started_at: now, updated_at: now }),
  onRelease: (_db, now) => ({ status: 'queued', started_at: null, updated_at: now }),
});

export const exportRepository = {
  async insert(db: Queryable, job: { id: string; tenantId: string; format: ExportFormat; filters: ExportFilters; totalRows: number; requestedBy: string | null; now: number }): Promise<void> {
    await db('finding_exports').insert({
      id: job.id, tenant_id: job.tenantId, format: job.format, filters: toJson(job.filters), status: 'queued',
      total_rows: job.totalRows, requested_by: job.requestedBy, locked_until: 0, created_at: job.now, updated_at: job.now,
    });
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<ExportJob | null> {
    const row = (await db('finding_exports').where({ tenant_id: tenantId, id }).first()) as ExportRow | undefined;
    return row ? toJob(row) : null;
  },

  /** Queued or running exports of a tenant (the per-tenant concurrency cap). */
  async countPending(db: Queryable, tenantId: string): Promise<number> {
    const row = (await db('finding_exports').where({ tenant_id: tenantId }).whereIn('status', ['queued', 'running']).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /** Claims the oldest queued export, or a running one whose lease ran out, for the claim's `token`. */
  async claim(db: Queryable, token: string, now: number, leaseMs: number): Promise<ExportJob | null> {
    const [id] = await exportQueue.claim(db, { token, now, leaseMs });
    return id ? this.job(db, id) : null;
  },

  /** Any tenant's job, for the worker. */
  async job(db: Queryable, id: string): Promise<ExportJob | null> {
    const row = (await db('finding_exports').where({ id }).first()) as ExportRow | undefined;
    return row ? toJob(row) : null;
  },

  queue: exportQueue,

  async complete(db: Queryable, id: string, token: string, result: { rowCount: number; sizeBytes: number; fileName: string; now: number; expiresAt: number }): Promise<boolean> {
    return exportQueue.finish(db, id, token, {
      status: 'completed', row_count: result.rowCount, size_bytes: result.sizeBytes, file_name: result.fileName,
      completed_at: result.now, expires_at: result.expiresAt, updated_at: result.now,
    });
  },

  async fail(db: Queryable, id: string, token: string, error: string, now: number): Promise<void> {
    await exportQueue.finish(db, id, token, { status: 'failed', error: error.slice(0, 500), completed_at: now, updated_at: now });
  },

  /** Gives a job back to the queue (its worker is shutting down): the queue's onRelease. */
  async requeue(db: Queryable, id: string, token: string, now: number): Promise<void> {
    await exportQueue.release(db, id, token, undefined, now);
  },

  /** Completed exports past their expiry: their files are due for deletion. */
  async listExpired(db: Queryable, now: number, limit: number): Promise<ExportJob[]> {
    const rows = (await db('finding_exports').where('status', 'completed').where('expires_at', '<=', now).orderBy('expires_at').limit(limit)) as ExportRow[];
    return rows.map(toJob);
  },

  async markExpired(db: Queryable, id: string, now: number): Promise<void> {
    await db('finding_exports').where({ id, status: 'completed' }).update({ status: 'expired', file_name: null, updated_at: now });
  },
};
