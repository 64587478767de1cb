import type { ExportJob } from '../../core/exports/export-views.ts';
import { toIso, toIsoRequired } from '../../core/time.ts';

/** Where a background export is polled and fetched: paths on this server, so they work behind any host name. */
export function exportUrls(id: string): { status_url: string; download_url: string } {
  return { status_url: `/api/findings/exports/${id}`, download_url: `/api/findings/exports/${id}/download` };
}

/** The API view of a background export (no file path, no worker bookkeeping). */
export function exportView(job: ExportJob): Record<string, unknown> {
  return {
    id: job.id,
    format: job.format,
    status: job.status,
    filters: job.filters,
    total_rows: job.totalRows,
    row_count: job.rowCount,
    size_bytes: job.sizeBytes,
    error: job.error,
    created_at: toIsoRequired(job.createdAt),
    started_at: toIso(job.startedAt),
    completed_at: toIso(job.completedAt),
    expires_at: toIso(job.expiresAt),
    updated_at: toIsoRequired(job.updatedAt),
    ...exportUrls(job.id),
  };
}
