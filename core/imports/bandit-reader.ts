import type { Severity } from '../domain/severity.ts';
import { ImportFileError } from './import-file-error.ts';
import type { ImportedResult, ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { scoreImport } from './import-score.ts';
import { clip, cleanTags, compact, cweIds, evidenceText, httpUrls, LIMITS, referencesFor } from './import-text.ts';
import { jsonPath, type PathPart } from './json-path.ts';
import { JsonWalker } from './json-walker.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bandit's severities (its `-l`/`--severity-level` words); UNDEFINED is what a plugin without one reports. */
const SEVERITY: Record<string, Severity> = { HIGH: 'high', MEDIUM: 'medium', LOW: 'low', UNDEFINED: 'info' };

function invalid(where: string, message: string): never {
  throw new ImportFileError(`${message} (a bandit JSON report is {"results": [{filename, line_number, test_id, issue_severity, issue_confidence, issue_text}]}; write it with bandit -f json)`, where);
}

const isResultPath = (path: readonly PathPart[]): boolean => path.length === 2 && path[0] === 'results' && typeof path[1] === 'number';

/**
 * The flagged source lines out of bandit's `code` (the lines around the issue, each
 * prefixed with its number): `line_range`'s lines, as they read in the file.
 */
function flaggedLines(code: unknown, range: number[]): string | null {
  if (typeof code !== 'string' || !range.length) return null;
  const wanted = new Set(range);
  const lines = code.split('\n').flatMap((l) => {
    const m = /^(\d+) ?(.*)$/.exec(l);
    return m && wanted.has(Number(m[1])) ? [m[2]!] : [];
  });
  return lines.length ? lines.join('\n') : null;
}

/**
 * One bandit issue. Identity: the file, the flagged source text and the issue's text, not
 * the line number, so a finding survives lines added above it (bandit's own baseline
 * matches issues without line numbers too). Two identical flagged lines in one file are
 * one finding.
 */
export function banditResult(raw: unknown, where: string, generatedAt: number | null): ImportedResult {
  if (!isObject(raw)) invalid(where, 'expected an issue object');
  const file = raw.filename;
  if (typeof file !== 'string' || !file) invalid(`${where}.filename`, '"filename" is missing');
  const testId = raw.test_id;
  if (typeof testId !== 'string' || !testId) invalid(`${where}.test_id`, '"test_id" is missing');
  const line = raw.line_number;
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 0) invalid(`${where}.line_number`, '"line_number" must be a whole number');
  const severity = typeof raw.issue_severity === 'string' ? SEVERITY[raw.issue_severity.toUpperCase()] : undefined;
  if (!severity) invalid(`${where}.issue_severity`, `"issue_severity" must be LOW, MEDIUM, HIGH or UNDEFINED (found ${JSON.stringify(raw.issue_severity ?? null)})`);
  const text = typeof raw.issue_text === 'string' ? raw.issue_text.trim() : '';
  if (!text) invalid(`${where}.issue_text`, '"issue_text" is missing');
  const range = Array.isArray(raw.line_range) ? raw.line_range.filter((n): n is number => typeof n === 'number' && Number.isInteger(n)) : [];
  const flagged = flaggedLines(raw.code, range.length ? range : [line]);
  const cwe = isObject(raw.issue_cwe) ? raw.issue_cwe : {};
  const cwes = cweIds([cwe.id]);
  const testName = typeof raw.test_name === 'string' ? raw.test_name : '';
  const confidence = typeof raw.issue_confidence === 'string' ? raw.issue_confidence : null;
  return {
    where,
    targets: [],
    checkId: `bandit:${testId}`,
    location: [file, flagged !== null ? flagged.trim() : `line ${line}`, text].join('\u0000'),
    title: clip(`${testId}${testName ? ` ${testName}` : ''}: ${text.split('\n')[0]}`, LIMITS.title),
    description: clip(text, LIMITS.text),
    remediation: '',
    score: scoreImport({ vectors: [], severity }),
    evidence: compact({
      file: evidenceText(file),
      line,
      line_range: range.slice(0, LIMITS.listItems),
      column: typeof raw.col_offset === 'number' ? raw.col_offset : null,
      snippet: evidenceText(flagged),
      test_id: testId,
      test_name: evidenceText(testName),
      cwe_ids: cwes,
      tool: 'bandit',
      tool_severity: raw.issue_severity,
      confidence,
    }),
    references: httpUrls([raw.more_info, cwe.link, ...referencesFor(cwes, [])]).slice(0, LIMITS.references),
    tags: cleanTags(['bandit', testId, ...cwes]),
    observedAt: generatedAt,
    initialStatus: 'open',
  };
}

function generatedAtOf(skeleton: unknown): number | null {
  const at = isObject(skeleton) && typeof skeleton.generated_at === 'string' ? Date.parse(skeleton.generated_at) : NaN;
  return Number.isFinite(at) ? at : null;
}

/**
 * bandit's JSON report (`bandit -f json -r <dir>`), one result per issue. bandit writes its
 * keys sorted, so `generated_at` (when the results were seen) comes before `results`;
 * otherwise the file is read again with it. `errors` (files bandit could not parse) and
 * `metrics` are not findings. The report names no target: give asset_id or a map.
 */
export async function* readBandit(text: TextSource, limits: ReaderLimits, context?: unknown): AsyncGenerator<ReadResult, ReaderOutcome> {
  const walker = new JsonWalker(isResultPath, limits);
  let complete = true;
  for await (const item of walker.items(text)) {
    const generatedAt = generatedAtOf(context ?? walker.skeleton);
    if (generatedAt === null) complete = false;
    yield banditResult(item.value, jsonPath(item.path), generatedAt);
  }
  const root = walker.skeleton;
  if (!isObject(root)) invalid('$', 'expected a JSON object');
  if (!Array.isArray(root.results)) invalid('$.results', '"results" is missing or not an array');
  if (root.errors !== undefined && !Array.isArray(root.errors)) invalid('$.errors', '"errors" must be an array');
  return { context: { generated_at: root.generated_at }, complete: complete || context !== undefined || generatedAtOf(root) === null };
}
