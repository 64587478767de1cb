import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
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

  /**
   * Claims the oldest queued export, or a running one whose lease ran out (its worker
   * died), with a conditional UPDATE: two workers never get the same job.
   */
  async claim(db: Queryable, workerId: string, now: number, leaseMs: number): Promise<ExportJob | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const candidate = (await db('finding_exports')
        .where((w) => w.where('status', 'queued').orWhere((r) => r.where('status', 'running').where('locked_until', '<', now)))
        .orderBy('created_at', 'asc')
        .first('id', 'status', 'locked_until')) as { id: string; status: ExportStatus; locked_until: number | string } | undefined;
      if (!candidate) return null;
      const claimed = await db('finding_exports')
        .where({ id: candidate.id, status: candidate.status, locked_until: Number(candidate.locked_until) })
        .update({ status: 'running', locked_by: workerId, locked_until: now + leaseMs, started_at: now, updated_at: now });
      if (claimed === 1) {
        const row = (await db('finding_exports').where({ id: candidate.id }).first()) as ExportRow;
        return toJob(row);
      }
    }
    return null;
  },

  async renewLease(db: Queryable, id: string, workerId: string, until: number): Promise<boolean> {
    return (await db('finding_exports').where({ id, locked_by: workerId, status: 'running' }).update({ locked_until: until })) === 1;
  },

  async complete(db: Queryable, id: string, workerId: string, result: { rowCount: number; sizeBytes: number; fileName: string; now: number; expiresAt: number }): Promise<boolean> {
    const updated = await db('finding_exports').where({ id, locked_by: workerId, status: 'running' }).update({
      status: 'completed', row_count: result.rowCount, size_bytes: result.sizeBytes, file_name: result.fileName,
      completed_at: result.now, expires_at: result.expiresAt, updated_at: result.now, locked_by: null, locked_until: 0,
    });
    return updated === 1;
  },

  async fail(db: Queryable, id: string, workerId: string, error: string, now: number): Promise<void> {
    await db('finding_exports').where({ id, locked_by: workerId, status: 'running' }).update({
      status: 'failed', error: error.slice(0, 500), completed_at: now, updated_at: now, locked_by: null, locked_until: 0,
    });
  },

  /** Gives a job back to the queue (its worker is shutting down). */
  async requeue(db: Queryable, id: string, workerId: string, now: number): Promise<void> {
    await db('finding_exports').where({ id, locked_by: workerId, status: 'running' }).update({ status: 'queued', locked_by: null, locked_until: 0, started_at: null, updated_at: now });
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
