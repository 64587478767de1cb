import type { Evidence } from '../domain/evidence.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import type { ImportScore } from './import-score.ts';

/** The tools whose result files Rampart reads (POST /api/findings/import?format=…). */
export const IMPORT_FORMATS = ['sarif', 'nuclei', 'zap', 'nmap', 'bandit', 'gitleaks'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * One result of a tool, turned into what a finding needs. Readers produce these; the
 * import service maps `targets` to an asset and ingests them like scanned findings.
 */
export interface ImportedResult {
  /** Where in the file it came from, for messages: `line 12`, `$.runs[0].results[3]`. */
  where: string;
  /**
   * Names of the tool's target, most specific first (a site URL, then its host name…):
   * each is looked up in the caller's mapping, then among asset names when asked.
   */
  targets: string[];
  /** The tool's rule, template or plugin (`nuclei:git-config`); with `location`, the dedup key. */
  checkId: string;
  /** What makes this result distinct from others of the same check on the same asset. */
  location: string;
  title: string;
  description: string;
  remediation: string;
  score: ImportScore;
  evidence: Evidence;
  references: string[];
  tags: string[];
  /** When the tool saw it (epoch ms), when the file says so. */
  observedAt: number | null;
  /** The status a new finding starts in: a result the tool marks suppressed or false arrives triaged. */
  initialStatus: Extract<FindingStatus, 'open' | 'accepted_risk' | 'false_positive'>;
}

/** A result the file holds but that is not a problem (SARIF `pass`, a baseline's `absent`…). */
export interface SkippedResult {
  where: string;
  skipped: string;
}

export type ReadResult = ImportedResult | SkippedResult;

export function isSkipped(r: ReadResult): r is SkippedResult {
  return 'skipped' in r;
}

/** The text of the file, from the start, each time it is called (files are read more than once). */
export type TextSource = () => AsyncIterable<string>;

export interface ReaderLimits {
  /** Largest single result (JSONL line, SARIF result, ZAP alert), in characters. */
  maxItemChars: number;
  /** Largest document once its results are left out (SARIF rules, ZAP site headers). */
  maxSkeletonChars: number;
}

/**
 * What a reader learnt besides the results: the document around them (SARIF runs and
 * their rules, ZAP sites) and whether every result met its context before it (tool
 * before results, site name before alerts: what tools write). When not, the import
 * reads the file again handing `context` back, and the results are made with all of it.
 */
export interface ReaderOutcome {
  context: unknown;
  complete: boolean;
}

/** Reads one format: every result of the file, validated, in file order. */
export type ResultReader = (text: TextSource, limits: ReaderLimits, context?: unknown) => AsyncGenerator<ReadResult, ReaderOutcome>;
