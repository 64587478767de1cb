/**
 * The values a scan's status and priority take, and the list filters of GET /api/scans:
 * shared by the API schemas, the service and the repository, and kept apart from the
 * repository so routes never import it.
 */
export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const SCAN_PRIORITIES = ['low', 'normal', 'high'] as const;
export type ScanPriority = (typeof SCAN_PRIORITIES)[number];

export interface ScanFilters {
  status?: ScanStatus;
  asset_id?: string;
  scan_type?: string;
  /** created_at bounds, epoch ms, inclusive. */
  from?: number;
  to?: number;
}
