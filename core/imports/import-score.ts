import type { Severity } from '../domain/severity.ts';
import { SEVERITIES } from '../domain/severity.ts';
import { parseCvss31, severityOf } from '../findings/cvss.ts';

/** Severity, score and vector of an imported finding (the columns a finding stores). */
export interface ImportScore {
  severity: Severity;
  cvss: number;
  /** Canonical CVSS v3.1 vector, or '' when the tool gave none that could be scored. */
  cvssVector: string;
  /** How the score was reached: `vector`, `score` (the tool's 0–10 number) or `severity` (the tool's level). */
  basis: 'vector' | 'score' | 'severity';
}

/**
 * The lowest score of each severity band (the specification's table): a finding whose tool
 * gives a severity and nothing else gets the score that severity guarantees, never more.
 */
export const BAND_FLOOR: Record<Severity, number> = { critical: 9.0, high: 7.0, medium: 4.0, low: 0.1, info: 0.0 };

export interface ScoreInput {
  /** Candidate CVSS vectors, best first (`CVSS:3.1/…` or `CVSS:3.0/…`; others are ignored). */
  vectors: unknown[];
  /** A 0–10 score the tool gives (SARIF security-severity, nuclei cvss-score). */
  score?: unknown;
  /** The tool's own severity, already mapped to Rampart's words. */
  severity?: Severity | null;
}

/**
 * Rampart's rule that severity follows from CVSS holds for imports too. A vector wins: it
 * is scored like a scanned finding's (CVSS 3.0 vectors have the same base metrics and are
 * scored as 3.1, the version FIRST fixed the rounding in). Without one, the tool's 0–10
 * score sets the band; without that, the tool's severity sets the band at its floor.
 */
export function scoreImport(input: ScoreInput): ImportScore {
  for (const candidate of input.vectors) {
    if (typeof candidate !== 'string') continue;
    const text = candidate.trim().replace(/^CVSS:3\.0\//, 'CVSS:3.1/');
    if (!text.startsWith('CVSS:3.1/')) continue;
    try {
      const parsed = parseCvss31(text);
      return { severity: parsed.severity, cvss: parsed.score, cvssVector: parsed.vector, basis: 'vector' };
    } catch {
      // A malformed vector from the tool is not fatal: the next source decides.
    }
  }
  const score = typeof input.score === 'string' && input.score.trim() !== '' ? Number(input.score) : input.score;
  if (typeof score === 'number' && Number.isFinite(score) && score >= 0 && score <= 10) {
    const rounded = Math.round(score * 10) / 10;
    return { severity: severityOf(rounded), cvss: rounded, cvssVector: '', basis: 'score' };
  }
  const severity = input.severity ?? 'info';
  return { severity, cvss: BAND_FLOOR[severity], cvssVector: '', basis: 'severity' };
}

/** A tool's severity word in Rampart's terms (`MEDIUM`, `Moderate`, `informational`, `unknown`…), or null. */
export function severityWord(word: unknown): Severity | null {
  if (typeof word !== 'string') return null;
  const w = word.trim().toLowerCase();
  if ((SEVERITIES as readonly string[]).includes(w)) return w as Severity;
  if (w === 'moderate') return 'medium';
  if (w === 'informational' || w === 'information' || w === 'none' || w === 'unknown') return 'info';
  return null;
}
