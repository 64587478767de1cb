import type { FindingSummary, Severity } from '../domain/severity.ts';

/** Open findings of one asset, grouped: how many of a severity and the sum of their CVSS scores. */
export interface OpenFindingGroup {
  severity: Severity;
  count: number;
  cvssSum: number;
}

/**
 * Severity weights of the risk score. A finding contributes weight × CVSS / 10, so a
 * 9.8 critical counts 9.8 and a 3.1 low 0.155; `info` findings (CVSS 0.0) add nothing.
 */
export const RISK_WEIGHTS: Record<Severity, number> = { critical: 10, high: 5, medium: 2, low: 0.5, info: 0 };

/** Exposure at which the score reaches 1 − 1/e ≈ 63. */
export const RISK_SCALE = 10;

/**
 * risk_score = round(100 × (1 − e^(−S / 10))), S = Σ over open findings of
 * weight(severity) × cvss / 10. Saturating: it grows with every open finding but never
 * passes 100, and the first findings move it most. One open 9.8 critical gives 62,
 * two give 86, three 95; one 7.5 high gives 31; one 5.0 medium 10; ten 3.0 lows 14.
 * "Open" means not yet dealt with: status `open` or `confirmed` (a confirmed finding
 * is still exploitable); resolved, false-positive and accepted-risk findings don't count.
 */
export function riskScore(groups: readonly OpenFindingGroup[]): number {
  let exposure = 0;
  for (const g of groups) exposure += (RISK_WEIGHTS[g.severity] * g.cvssSum) / 10;
  return Math.min(100, Math.max(0, Math.round(100 * (1 - Math.exp(-exposure / RISK_SCALE)))));
}

export function findingSummary(groups: readonly OpenFindingGroup[]): FindingSummary {
  const summary: FindingSummary = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const g of groups) summary[g.severity] += g.count;
  return summary;
}
