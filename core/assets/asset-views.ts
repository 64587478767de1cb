import type { AssetType } from '../domain/asset-type.ts';

/**
 * The words an asset's API schemas, its service and its repository share: the statuses
 * an asset takes and the list filters of GET /api/assets. Kept apart from the repository
 * so routes never import it.
 */
export const ASSET_STATUSES = ['active', 'inactive', 'pending_verification'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export interface AssetFilters {
  type?: AssetType;
  tag?: string;
  status?: AssetStatus;
  search?: string;
  sortBy: 'name' | 'type' | 'created_at' | 'risk_score';
  sortOrder: 'asc' | 'desc';
}
