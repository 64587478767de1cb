import type { Severity } from '../domain/severity.ts';
import { scoreImport, severityWord, type ImportScore } from './import-score.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SARIF levels as severities, for a result with no score of its own (GitHub maps them the same way). */
const LEVEL: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'low', none: 'info' };

const METRICS: Array<[string, string, Record<string, string>]> = [
  ['AV', 'attackVector', { NETWORK: 'N', ADJACENT_NETWORK: 'A', ADJACENT: 'A', LOCAL: 'L', PHYSICAL: 'P' }],
  ['AC', 'attackComplexity', { LOW: 'L', HIGH: 'H' }],
  ['PR', 'privilegesRequired', { NONE: 'N', LOW: 'L', HIGH: 'H' }],
  ['UI', 'userInteraction', { NONE: 'N', REQUIRED: 'R' }],
  ['S', 'scope', { UNCHANGED: 'U', CHANGED: 'C' }],
  ['C', 'confidentialityImpact', { HIGH: 'H', LOW: 'L', NONE: 'N' }],
  ['I', 'integrityImpact', { HIGH: 'H', LOW: 'L', NONE: 'N' }],
  ['A', 'availabilityImpact', { HIGH: 'H', LOW: 'L', NONE: 'N' }],
];

/**
 * A CVSS v3 vector spelled out metric by metric, as OWASP dependency-check writes it
 * (`cvssv3_attackVector: "NETWORK"`, …), or null when a metric is missing.
 */
function vectorFromMetrics(props: Json): string | null {
  const parts: string[] = [];
  for (const [code, name, values] of METRICS) {
    const value = props[`cvssv3_${name}`];
    const letter = typeof value === 'string' ? values[value.toUpperCase()] : undefined;
    if (!letter) return null;
    parts.push(`${code}:${letter}`);
  }
  return `CVSS:3.1/${parts.join('/')}`;
}

/** Every CVSS v3 vector a property bag holds, under any key (`cvssv3_vector`, `cvss`, …). */
function vectorsIn(props: Json): string[] {
  const found = Object.values(props).filter((v): v is string => typeof v === 'string' && /^CVSS:3\.[01]\//.test(v.trim()));
  const built = vectorFromMetrics(props);
  return built ? [...found, built] : found;
}

export interface SarifSeverity {
  score: ImportScore;
  /** The tool's words, kept as evidence. */
  level: string;
  securitySeverity: string | null;
}

/**
 * Severity of a SARIF result: a CVSS vector in the result's or its rule's properties wins;
 * then `security-severity` (GitHub's 0–10 score, or a word some tools write), then
 * dependency-check's `cvssv3_baseScore`; then the level (error high, warning medium, note
 * low, none info), which defaults to the rule's `defaultConfiguration.level`, else
 * `warning` for a failing result (SARIF §3.27.10).
 */
export function sarifSeverity(result: Json, rule: Json | null, kind: string): SarifSeverity {
  const resultProps = isObject(result.properties) ? result.properties : {};
  const ruleProps = rule && isObject(rule.properties) ? rule.properties : {};
  const defaults = rule && isObject(rule.defaultConfiguration) ? rule.defaultConfiguration : {};
  const level = typeof result.level === 'string' ? result.level : typeof defaults.level === 'string' ? defaults.level : kind === 'fail' ? 'warning' : 'none';
  const rawSecurity = resultProps['security-severity'] ?? ruleProps['security-severity'];
  const securitySeverity = typeof rawSecurity === 'string' || typeof rawSecurity === 'number' ? String(rawSecurity) : null;
  const numeric = securitySeverity !== null && /^\s*\d+(\.\d+)?\s*$/.test(securitySeverity) ? Number(securitySeverity) : null;
  const baseScore = resultProps.cvssv3_baseScore ?? ruleProps.cvssv3_baseScore;
  const score = scoreImport({
    vectors: [...vectorsIn(resultProps), ...vectorsIn(ruleProps)],
    score: numeric ?? baseScore,
    severity: severityWord(securitySeverity) ?? LEVEL[level] ?? 'medium',
  });
  return { score, level, securitySeverity };
}
