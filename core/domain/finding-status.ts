/** A finding's triage states; any state may move to any other, with a note and history. */
export const FINDING_STATUSES = ['open', 'confirmed', 'resolved', 'false_positive', 'accepted_risk'] as const;

export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** Statuses that count towards risk_score and finding_summary: not yet dealt with. */
export const UNRESOLVED_STATUSES = ['open', 'confirmed'] as const satisfies readonly FindingStatus[];
