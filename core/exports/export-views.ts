import type { FindingFilters, FindingSort } from '../findings/finding-views.ts';
import type { ExportFormat } from './export-formats.ts';

/**
 * What an export request and a background export look like to the routes, the service
 * and the repositories. Kept apart from the repositories so routes never import them.
 */

/** The list query's keys (GET /api/findings) as an export request carries them; page/per_page only when given. */
export interface ExportFilters extends FindingFilters {
  sort_by?: FindingSort['sortBy'];
  sort_order?: FindingSort['sortOrder'];
  page?: number;
  per_page?: number;
}

export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed' | 'expired';

/** A background export as stored: its request, its progress and, once completed, its file. */
export interface ExportJob {
  id: string;
  tenantId: string;
  format: ExportFormat;
  filters: ExportFilters;
  status: ExportStatus;
  totalRows: number;
  rowCount: number | null;
  sizeBytes: number | null;
  fileName: string | null;
  error: string | null;
  requestedBy: string | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  expiresAt: number | null;
  updatedAt: number;
}
