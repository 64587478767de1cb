import type { FindingStatus } from '../domain/finding-status.ts';
import type { Severity } from '../domain/severity.ts';

/**
 * The list query of GET /api/findings as the service and the repository take it (an
 * export's filters are the same keys). Kept apart from the repository so routes never
 * import it.
 */
export interface FindingFilters {
  severity?: Severity[];
  status?: FindingStatus;
  asset_id?: string;
  scan_id?: string;
  cvss_min?: number;
  cvss_max?: number;
  search?: string;
  /** true: a CVE of the finding is in the KEV catalog in force; false: none is. */
  kev?: boolean;
  /** The finding's highest EPSS score in force is at least this (0..1). */
  epss_min?: number;
}

export interface FindingSort {
  sortBy: 'severity' | 'cvss' | 'discovered_at' | 'title' | 'epss';
  sortOrder: 'asc' | 'desc';
}
