import type { Severity } from '../domain/severity.ts';
import { InputError } from '../errors.ts';

/**
 * CVSS v3.1 vector parsing and base score (FIRST CVSS v3.1 specification §7.1 and
 * Appendix A). Hand-written because the lenient libraries accept duplicates, a
 * missing prefix and incomplete vectors, which would let a finding's severity drift
 * from its vector.
 *
 * Parsing rules (strict where ambiguity could change the score, tolerant of order):
 * - the vector starts with exactly `CVSS:3.1/` (case-sensitive, no surrounding spaces);
 * - then `/`-separated `Metric:Value` pairs, case-sensitive, no empty segments;
 * - all 8 base metrics (AV AC PR UI S C I A) are required, in any order;
 * - temporal (E RL RC) and environmental (CR IR AR MAV MAC MPR MUI MS MC MI MA)
 *   metrics are optional and validated, but only the base score is computed;
 * - a repeated metric, an unknown metric or a value outside its set is rejected.
 * The returned `vector` is the canonical form (spec order: base, temporal,
 * environmental), so equal vectors compare equal as strings.
 */

export interface CvssResult {
  vector: string;
  score: number;
  severity: Severity;
  metrics: Record<string, string>;
}

const PREFIX = 'CVSS:3.1/';
const BASE = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'] as const;

// Allowed values per metric, in canonical order (base, temporal, environmental).
const ALLOWED: Record<string, readonly string[]> = {
  AV: ['N', 'A', 'L', 'P'], AC: ['L', 'H'], PR: ['N', 'L', 'H'], UI: ['N', 'R'], S: ['U', 'C'],
  C: ['H', 'L', 'N'], I: ['H', 'L', 'N'], A: ['H', 'L', 'N'],
  E: ['X', 'U', 'P', 'F', 'H'], RL: ['X', 'O', 'T', 'W', 'U'], RC: ['X', 'U', 'R', 'C'],
  CR: ['X', 'L', 'M', 'H'], IR: ['X', 'L', 'M', 'H'], AR: ['X', 'L', 'M', 'H'],
  MAV: ['X', 'N', 'A', 'L', 'P'], MAC: ['X', 'L', 'H'], MPR: ['X', 'N', 'L', 'H'], MUI: ['X', 'N', 'R'],
  MS: ['X', 'U', 'C'], MC: ['X', 'N', 'L', 'H'], MI: ['X', 'N', 'L', 'H'], MA: ['X', 'N', 'L', 'H'],
};
const ORDER = Object.keys(ALLOWED);

const AV_W: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const AC_W: Record<string, number> = { L: 0.77, H: 0.44 };
const UI_W: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA_W: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };

function invalid(message: string): never {
  throw new InputError(`Invalid CVSS v3.1 vector: ${message}`, 'invalid_cvss_vector');
}

/** Appendix A: rounds up to one decimal without the float artefacts of Math.ceil(x*10)/10. */
export function roundup(x: number): number {
  const i = Math.round(x * 100000);
  return i % 10000 === 0 ? i / 100000 : (Math.floor(i / 10000) + 1) / 10;
}

/** Severity band of the spec's table (0.0 is `info`, the spec's name for CVSS "None"). */
export function severityOf(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

function baseScore(m: Record<string, string>): number {
  const changed = m.S === 'C';
  const pr = m.PR === 'N' ? 0.85 : m.PR === 'L' ? (changed ? 0.68 : 0.62) : changed ? 0.5 : 0.27;
  const iss = 1 - (1 - CIA_W[m.C!]!) * (1 - CIA_W[m.I!]!) * (1 - CIA_W[m.A!]!);
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  if (impact <= 0) return 0;
  const exploitability = 8.22 * AV_W[m.AV!]! * AC_W[m.AC!]! * pr * UI_W[m.UI!]!;
  return roundup(Math.min((changed ? 1.08 : 1) * (impact + exploitability), 10));
}

/** Parses and scores a CVSS v3.1 vector; throws InputError `invalid_cvss_vector`. */
export function parseCvss31(vector: string): CvssResult {
  if (typeof vector !== 'string' || !vector.startsWith(PREFIX)) invalid(`must start with "${PREFIX}"`);
  const metrics: Record<string, string> = {};
  for (const part of vector.slice(PREFIX.length).split('/')) {
    const match = /^([A-Z]+):([A-Z])$/.exec(part);
    if (!match) invalid(`malformed component "${part}" (expected Metric:Value)`);
    const [, key, value] = match as unknown as [string, string, string];
    const allowed = ALLOWED[key];
    if (!allowed) invalid(`unknown metric "${key}"`);
    if (key in metrics) invalid(`metric "${key}" appears more than once`);
    if (!allowed.includes(value)) invalid(`value "${value}" is not allowed for ${key} (one of ${allowed.join(', ')})`);
    metrics[key] = value;
  }
  const missing = BASE.filter((k) => !(k in metrics));
  if (missing.length) invalid(`missing base metric${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  const canonical = PREFIX + ORDER.filter((k) => k in metrics).map((k) => `${k}:${metrics[k]}`).join('/');
  const score = baseScore(metrics);
  return { vector: canonical, score, severity: severityOf(score), metrics };
}
