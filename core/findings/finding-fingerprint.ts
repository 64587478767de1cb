import { createHash } from 'node:crypto';
import type { Evidence } from '../domain/evidence.ts';

/** The kinds of fingerprint key, strongest first: a match on an earlier kind decides. */
export const KEY_KINDS = ['rule', 'cve', 'cwe_location'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export interface FingerprintKey {
  kind: KeyKind;
  /** What the key says, as the API shows it: `CVE-2021-44228`, `CWE-200 url:/files/.env`, `nuclei:laravel-env http://…`. */
  value: string;
  /** Looked up per asset; for `rule` the finding's dedup key (sha256 of rule id NUL location). */
  hash: string;
}

/** What a source tells about one problem it found, as the fingerprint reads it. */
export interface ReportedWeakness {
  /** The tool's rule, check, template or plugin id. */
  ruleId: string;
  /** Where the tool says it is (its own notation); with the rule id, the rule key. */
  location: string;
  evidence: Evidence;
  tags: readonly string[];
}

/**
 * CWEs that tools use for the same weakness, counted as the first of their group. Exposed
 * files: nuclei's templates say CWE-200 or CWE-522 (credentials in a `.env`), ZAP CWE-538
 * or CWE-530, Rampart's web_app CWE-538: at the same URL path they are one problem.
 */
const CWE_GROUPS: ReadonlyArray<readonly string[]> = [
  ['CWE-200', 'CWE-201', 'CWE-215', 'CWE-522', 'CWE-527', 'CWE-528', 'CWE-530', 'CWE-532', 'CWE-538', 'CWE-540', 'CWE-548', 'CWE-552'],
  ['CWE-79', 'CWE-80', 'CWE-83', 'CWE-87'],
  ['CWE-89', 'CWE-564', 'CWE-943'],
  ['CWE-22', 'CWE-23', 'CWE-35', 'CWE-36'],
  ['CWE-78', 'CWE-77'],
];
const CWE_CANONICAL = new Map(CWE_GROUPS.flatMap((g) => g.map((c) => [c, g[0]!] as const)));

/** The CWE of Rampart's own checks, which report none themselves (docs/finding-fingerprints.md lists them). */
export const CHECK_CWES: Readonly<Record<string, string>> = {
  'web_app:exposed-files': 'CWE-538',
  'web_app:directory-listing': 'CWE-548',
  'web_app:xss-reflected': 'CWE-79',
  'web_app:sql-injection': 'CWE-89',
  'web_app:path-traversal': 'CWE-22',
  'web_app:command-injection': 'CWE-78',
  'web_app:template-injection': 'CWE-1336',
  'web_app:open-redirect': 'CWE-601',
  'web_app:mixed-content': 'CWE-319',
  'web_app:cors': 'CWE-942',
};

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');
const clip = (text: string, max = 500): string => (text.length <= max ? text : text.slice(0, max));

/** The rule key: the same hash findings.dedup_key has always held. */
export function ruleKeyOf(ruleId: string, location: string): string {
  return hash(`${ruleId}\u0000${location}`);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

function cvesOf(w: ReportedWeakness): string[] {
  const found = [...strings(w.evidence.cve_ids), ...w.tags, ...strings(w.evidence.cve)].flatMap((s) => [...s.matchAll(/\bcve-\d{4}-\d{4,}\b/gi)].map((m) => m[0].toUpperCase()));
  return [...new Set(found)].sort();
}

function cwesOf(w: ReportedWeakness): string[] {
  const found = [...strings(w.evidence.cwe_ids), ...w.tags, ...strings(w.evidence.cwe)].flatMap((s) => [...s.matchAll(/\bcwe[-_ ]?0*(\d+)\b/gi)].map((m) => `CWE-${m[1]}`));
  const own = CHECK_CWES[w.ruleId];
  return [...new Set([...found, ...(own ? [own] : [])].map((c) => CWE_CANONICAL.get(c) ?? c))].sort();
}

/** The path of a URL (or a path as given), without scheme, host, query or fragment. */
function urlPath(url: string): string {
  try {
    return new URL(url).pathname || '/';
  } catch {
    return url.split(/[?#]/)[0] || '/';
  }
}

/**
 * Where the weakness is, in one notation for every tool: `url:<path>[ param:<name>]` for
 * web findings (the host is the asset's), `file:<path>:<line>` for code, `port:<n>/<proto>`
 * for a service. Null when the source says nothing comparable.
 */
export function locationOf(evidence: Evidence): string | null {
  const param = typeof evidence.parameter === 'string' && evidence.parameter ? ` param:${evidence.parameter}` : '';
  if (typeof evidence.url === 'string' && evidence.url) return `url:${urlPath(evidence.url)}${param}`;
  const line = Number(evidence.line);
  if (typeof evidence.file === 'string' && evidence.file && Number.isInteger(line) && line > 0) return `file:${evidence.file}:${line}`;
  const port = Number(evidence.port);
  if (Number.isInteger(port) && port > 0 && port < 65536) {
    const proto = typeof evidence.protocol === 'string' && evidence.protocol ? evidence.protocol.toLowerCase() : 'tcp';
    return `port:${port}/${proto}`;
  }
  return null;
}

/** The fingerprint of one report: its rule key, each CVE it names, each CWE at its location. */
export function fingerprintOf(w: ReportedWeakness): FingerprintKey[] {
  const keys: FingerprintKey[] = [{ kind: 'rule', value: clip(`${w.ruleId} ${w.location}`.trim()), hash: ruleKeyOf(w.ruleId, w.location) }];
  for (const cve of cvesOf(w)) keys.push({ kind: 'cve', value: cve, hash: hash(`cve\u0000${cve}`) });
  const where = locationOf(w.evidence);
  if (where) for (const cwe of cwesOf(w)) keys.push({ kind: 'cwe_location', value: clip(`${cwe} ${where}`), hash: hash(`cwe_location\u0000${cwe} ${where}`) });
  return keys;
}

/** The CVE ids among a fingerprint's keys. */
export function cvesIn(keys: readonly FingerprintKey[]): string[] {
  return keys.filter((k) => k.kind === 'cve').map((k) => k.value);
}
