import { ImportFileError } from './import-file-error.ts';
import type { ImportedResult, ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { scoreImport } from './import-score.ts';
import { clip, cleanTags, compact, evidenceText, LIMITS } from './import-text.ts';
import { jsonPath } from './json-path.ts';
import { JsonWalker } from './json-walker.ts';

type Json = Record<string, unknown>;

/** Each leak stands alone. */
const NO_CONTEXT: ReaderOutcome = { context: null, complete: true };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Messages never quote a value of the file: it may be the secret. */
function invalid(where: string, message: string): never {
  throw new ImportFileError(`${message} (a gitleaks JSON report is an array of leaks with RuleID, File and StartLine; write it with gitleaks --report-format json)`, where);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * One gitleaks leak. The secret is never kept: `Secret`, `Match` (the text around it),
 * `Line`, and the commit's `Message`, `Author` and `Email` are not read into the finding;
 * evidence names the file, the lines and columns, the rule, the commit and gitleaks'
 * fingerprint (`[commit:]file:rule:line`, gitleaks' own identity of a leak, as
 * `.gitleaksignore` uses it, and the location here).
 */
export function gitleaksResult(raw: unknown, where: string): ImportedResult {
  if (!isObject(raw)) invalid(where, 'expected a leak object');
  const rule = str(raw.RuleID);
  if (!rule) invalid(`${where}.RuleID`, '"RuleID" is missing');
  const file = str(raw.File);
  if (!file) invalid(`${where}.File`, '"File" is missing');
  const line = int(raw.StartLine);
  if (line === null) invalid(`${where}.StartLine`, '"StartLine" must be a whole number');
  const commit = str(raw.Commit);
  const fingerprint = str(raw.Fingerprint) || [commit, file, rule, line].filter((p) => p !== '').join(':');
  const tags = Array.isArray(raw.Tags) ? raw.Tags : [];
  return {
    where,
    targets: [],
    checkId: `gitleaks:${rule}`,
    location: fingerprint,
    title: clip(`Secret in ${file}:${line} (${rule})`, LIMITS.title),
    description: clip(`${str(raw.Description).trim() || `gitleaks rule ${rule} matched.`}\n\nThe secret's value is not kept by Rampart; see the file at the line and columns in the evidence.`, LIMITS.text),
    remediation: 'Revoke or rotate the secret first (it has been exposed to everyone who could read the file or its history), then remove it from the file and, where needed, from the history.',
    score: scoreImport({ vectors: [], severity: 'high' }),
    evidence: compact({
      file: evidenceText(file),
      line,
      end_line: int(raw.EndLine),
      column: int(raw.StartColumn),
      end_column: int(raw.EndColumn),
      symlink_file: evidenceText(raw.SymlinkFile),
      commit: evidenceText(commit),
      rule_id: rule,
      fingerprint: evidenceText(fingerprint),
      entropy: typeof raw.Entropy === 'number' ? Math.round(raw.Entropy * 1000) / 1000 : null,
      gitleaks_tags: tags.filter((t): t is string => typeof t === 'string').slice(0, LIMITS.listItems),
      secret: 'redacted: gitleaks reported it; Rampart does not store it',
      tool: 'gitleaks',
    }),
    references: [],
    tags: cleanTags(['gitleaks', 'secret', rule, ...tags]),
    observedAt: null,
    initialStatus: 'open',
  };
}

/**
 * gitleaks' JSON report (`gitleaks dir|git --report-format json --report-path <file>`): one
 * array, one result per leak, read an entry at a time. The report names no repository:
 * give asset_id or a map.
 */
export async function* readGitleaks(text: TextSource, limits: ReaderLimits): AsyncGenerator<ReadResult, ReaderOutcome> {
  const walker = new JsonWalker((path) => path.length === 1 && typeof path[0] === 'number', limits);
  for await (const item of walker.items(text)) yield gitleaksResult(item.value, jsonPath(item.path));
  if (!Array.isArray(walker.skeleton)) invalid('$', 'expected a JSON array of leaks');
  return NO_CONTEXT;
}
