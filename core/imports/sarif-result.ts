import type { ReadResult } from './import-result.ts';
import { clip, cleanTags, compact, cveIds, cweIds, evidenceText, hostOf, httpUrls, LIMITS, referencesFor } from './import-text.ts';
import { ruleOf, type SarifRun } from './sarif-run.ts';
import { sarifSeverity } from './sarif-severity.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const textOf = (m: unknown): string => (isObject(m) ? (typeof m.text === 'string' ? m.text : typeof m.markdown === 'string' ? m.markdown : '') : '');

/** The message's text, or its rule's message string with `{0}`… filled from `arguments` (SARIF §3.11.5). */
function messageOf(message: unknown, rule: Json | null): string {
  if (!isObject(message)) return '';
  const direct = textOf(message);
  if (direct) return direct;
  const strings = rule && isObject(rule.messageStrings) ? rule.messageStrings : {};
  const template = typeof message.id === 'string' ? textOf(strings[message.id]) : '';
  const args = arrayOf(message.arguments).map(String);
  return template.replace(/\{(\d+)\}/g, (m, i: string) => args[Number(i)] ?? m);
}

interface Place {
  uri: string | null;
  line: number | null;
  column: number | null;
  endLine: number | null;
  snippet: string | null;
  logical: string | null;
  note: string | null;
}

function placeOf(result: Json, run: SarifRun): Place {
  const location = arrayOf(result.locations).find(isObject) ?? {};
  const physical = isObject(location.physicalLocation) ? location.physicalLocation : {};
  const artifact = isObject(physical.artifactLocation) ? physical.artifactLocation : {};
  const region = isObject(physical.region) ? physical.region : {};
  const logical = arrayOf(location.logicalLocations).find(isObject);
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
  return {
    uri: typeof artifact.uri === 'string' ? artifact.uri : typeof artifact.index === 'number' ? run.artifactUris[artifact.index] ?? null : null,
    line: num(region.startLine),
    column: num(region.startColumn),
    endLine: num(region.endLine),
    snippet: isObject(region.snippet) ? textOf(region.snippet) || null : null,
    logical: logical ? String(logical.fullyQualifiedName ?? logical.name ?? '') || null : null,
    note: textOf(location.message) || null,
  };
}

function fingerprintsOf(result: Json): string | null {
  const bag = isObject(result.fingerprints) && Object.keys(result.fingerprints).length ? result.fingerprints : isObject(result.partialFingerprints) ? result.partialFingerprints : null;
  if (!bag || !Object.keys(bag).length) return null;
  return Object.keys(bag).sort().map((k) => `${k}=${String(bag[k])}`).join(';');
}

/** CWE ids a rule names: its tags (`external/cwe/cwe-079`, `CWE-89: …`) and its relationships to the CWE taxonomy. */
function ruleCwes(rule: Json | null, result: Json): string[] {
  const tags = rule && isObject(rule.properties) ? arrayOf(rule.properties.tags) : [];
  const related = rule ? arrayOf(rule.relationships).flatMap((r) => (isObject(r) && isObject(r.target) ? [r.target.id] : [])) : [];
  const taxa = arrayOf(result.taxa).flatMap((t) => (isObject(t) ? [t.id] : []));
  return cweIds([...tags, ...related, ...taxa].filter((v) => typeof v === 'string' && /cwe/i.test(v)));
}

/**
 * One SARIF result as an imported result, or skipped: `kind` pass or notApplicable (not a
 * problem), `baselineState` absent (gone since the baseline). A result with an accepted
 * suppression arrives as accepted_risk. Identity: the tool's fingerprints when it gives
 * them (stable when lines move), else file, region and message.
 */
export function sarifResult(result: Json, where: string, run: SarifRun): ReadResult {
  const kind = typeof result.kind === 'string' ? result.kind : 'fail';
  if (kind === 'pass' || kind === 'notApplicable') return { where, skipped: `kind ${kind}` };
  if (result.baselineState === 'absent') return { where, skipped: 'baselineState absent' };
  const rule = ruleOf(result, run);
  const ruleId = typeof result.ruleId === 'string' ? result.ruleId : isObject(result.rule) && typeof result.rule.id === 'string' ? result.rule.id : typeof rule?.id === 'string' ? rule.id : '';
  const message = messageOf(result.message, rule).trim();
  const place = placeOf(result, run);
  const severity = sarifSeverity(result, rule, kind);
  const cves = cveIds([ruleId]);
  const cwes = ruleCwes(rule, result);
  const ruleTitle = rule ? textOf(rule.shortDescription).trim() || (typeof rule.name === 'string' && / /.test(rule.name) ? rule.name : '') : '';
  let title = ruleTitle || message.split('\n')[0]!.trim() || ruleId || 'SARIF result';
  if (cves[0] && !title.includes(cves[0])) title = `${cves[0]}: ${title}`;
  const fullDescription = rule ? textOf(rule.fullDescription).trim() : '';
  const description = [message !== title ? message : '', fullDescription !== message ? fullDescription : ''].filter(Boolean).join('\n\n');
  const help = rule ? textOf(rule.help).trim() : '';
  const fingerprints = fingerprintsOf(result);
  const suppressed = arrayOf(result.suppressions).some((s) => isObject(s) && (s.status === undefined || s.status === 'accepted'));
  const detected = isObject(result.provenance) && typeof result.provenance.lastDetectionTimeUtc === 'string' ? Date.parse(result.provenance.lastDetectionTimeUtc) : NaN;
  const tags = rule && isObject(rule.properties) ? arrayOf(rule.properties.tags) : [];
  return {
    where,
    targets: run.repositoryUri ? [...new Set([run.repositoryUri, hostOf(run.repositoryUri)].filter((t): t is string => !!t))] : [],
    checkId: `sarif:${run.toolName}:${ruleId || '(no rule)'}`,
    location: fingerprints
      ? [place.uri ?? '', fingerprints].join('\u0000')
      : [place.uri ?? '', place.line ?? '', place.column ?? '', place.logical ?? '', place.note ?? '', message].join('\u0000'),
    title: clip(title, LIMITS.title),
    description: clip(description, LIMITS.text),
    remediation: clip(help !== fullDescription && help !== message ? help : '', LIMITS.text),
    score: severity.score,
    evidence: compact({
      file: evidenceText(place.uri),
      line: place.line,
      column: place.column,
      end_line: place.endLine,
      snippet: evidenceText(place.snippet),
      logical_location: evidenceText(place.logical),
      location_message: evidenceText(place.note),
      message: evidenceText(message),
      rule_id: evidenceText(ruleId),
      level: severity.level,
      security_severity: severity.securitySeverity,
      cve_ids: cves,
      cwe_ids: cwes,
      repository: evidenceText(run.repositoryUri),
      tool: run.toolName,
      tool_version: run.toolVersion,
      suppressed: suppressed || null,
    }),
    references: httpUrls([rule?.helpUri, ...referencesFor(cwes, cves)]).slice(0, LIMITS.references),
    tags: cleanTags([...tags, ...cves, ...cwes]),
    observedAt: Number.isFinite(detected) ? detected : run.finishedAt,
    initialStatus: suppressed ? 'accepted_risk' : 'open',
  };
}
