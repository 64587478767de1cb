import { InputError } from '../errors.ts';

/** The feeds Rampart keeps: the CISA KEV catalog and FIRST EPSS scores. Global, not per tenant. */
export const FEEDS = ['kev', 'epss'] as const;
export type FeedKind = (typeof FEEDS)[number];

/** Where a load came from: a file given to `rampart feeds load`, or a scheduled fetch. */
export interface FeedSource {
  kind: 'file' | 'url';
  /** The path, or the URL without user info, query or fragment (a mirror's credentials stay out of the record). */
  location: string;
}

/** What a feed says about itself: KEV `dateReleased`/`catalogVersion`, EPSS `score_date`/`model_version`. */
export interface FeedHeader {
  /** ISO 8601 with `Z`. */
  feedDate: string;
  feedVersion: string;
}

/** A KEV catalog entry as stored (kev_entries). */
export interface KevRow {
  cve_id: string;
  vendor_project: string;
  product: string;
  vulnerability_name: string;
  date_added: string;
  short_description: string;
  required_action: string;
  due_date: string;
  known_ransomware: string;
  notes: string;
  /** JSON array of CWE ids. */
  cwes: string;
}

/** An EPSS score as stored (epss_scores). */
export interface EpssRow {
  cve_id: string;
  epss: number;
  percentile: number;
}

/** The outcome of a load that was accepted and is now the feed in force. */
export interface FeedLoadResult {
  loadId: string;
  feed: FeedKind;
  source: FeedSource;
  feedDate: string;
  feedVersion: string;
  rows: number;
  /** CVEs new in this load, gone since the previous one, and present in both with different values. */
  added: number;
  removed: number;
  changed: number;
  sha256: string;
  bytes: number;
  loadedAt: number;
}

/**
 * A feed that is not in its published format, or is truncated: refused, and the feed in
 * force stays. `where` names the place it broke (`line 7`, `$.vulnerabilities[3].cveID`).
 */
export class FeedRefusedError extends InputError {
  readonly where: string;

  constructor(feed: FeedKind, where: string, problem: string) {
    super(`The ${feed.toUpperCase()} feed was refused at ${where}: ${problem}. The feed in force is unchanged.`, 'invalid_feed', { details: [{ field: where, message: problem }] });
    this.where = where;
  }
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

/** A CVE id as MITRE assigns them: CVE-YYYY-NNNN, four or more digits. */
export function isCveId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 32 && CVE_ID.test(value);
}

/** A feed's date as ISO 8601 with `Z`; accepts `+0000`-style offsets (EPSS) and plain dates. */
export function feedDateIso(value: string): string | null {
  const normalized = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/^\d{4}-\d{2}-\d{2}/.test(normalized)) return null;
  const ms = Date.parse(normalized);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
