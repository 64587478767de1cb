/** The kinds of asset a tenant registers; also what a scanner declares it can serve. */
export const ASSET_TYPES = ['domain', 'ip', 'url', 'network'] as const;

/** Asset kinds a scanner can serve. */
export type AssetType = (typeof ASSET_TYPES)[number];
