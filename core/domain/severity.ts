/**
 * Finding severities: the one definition the API, the engine, exports and the plugin
 * contract share (core/plugin-api/ re-exports the type for plugin authors).
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** Finding severities, highest first. */
export type Severity = (typeof SEVERITIES)[number];

/** Rank used for "sort by severity" and stored in `severity_rank`: critical highest. */
export const SEVERITY_RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

export function severityOfRank(rank: number): Severity {
  return SEVERITIES[4 - rank]!;
}

/** Counts per severity, e.g. an asset's open findings (`finding_summary`). */
export type FindingSummary = Record<Severity, number>;
