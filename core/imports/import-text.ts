import type { Evidence } from '../domain/evidence.ts';

/**
 * Text helpers shared by the readers: tools write HTML (ZAP), Markdown-ish lists (old
 * nuclei) or long free text where Rampart stores plain text of bounded size.
 */

/** Column limits of a finding (core/db/migrations/004-findings.ts) and sane caps for free text. */
export const LIMITS = { title: 300, text: 64 * 1024, evidenceValue: 4096, listItems: 50, references: 50, tags: 50, tag: 100 } as const;

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** HTML fragments (ZAP's `<p>…</p>`) as plain text: paragraphs and breaks become lines, tags go, entities are decoded. */
export function htmlToText(html: unknown): string {
  if (typeof html !== 'string') return '';
  return html
    .replace(/<\s*br\s*\/?\s*>/gi, '\n')
    .replace(/<\s*\/\s*(p|div|li|tr|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The http(s) URLs in a text, in order, without duplicates (trailing punctuation dropped). */
export function urlsIn(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const found = text.match(/https?:\/\/[^\s<>"'`\]]+/g) ?? [];
  const trim = (u: string): string => {
    const cut = u.replace(/[.,;:!?]+$/, '');
    // A closing parenthesis belongs to the URL only when the URL opened one (…/gg622941(v=vs.85)).
    return cut.endsWith(')') && (cut.match(/\(/g) ?? []).length < (cut.match(/\)/g) ?? []).length ? trim(cut.slice(0, -1)) : cut;
  };
  return [...new Set(found.map(trim))];
}

/** Only absolute http(s) URLs, each at most 2048 characters. */
export function httpUrls(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const u = v.trim();
    if (/^https?:\/\/\S+$/i.test(u) && u.length <= 2048) out.push(u);
  }
  // Templates and generated links name the same page in different case (cve-… / CVE-…).
  return [...new Map(out.map((u) => [u.toLowerCase(), u])).values()];
}

/** `CWE-79` for every CWE number in the values (`cwe-79`, `external/cwe/cwe-079`, `CWE-89: …`, `79`). */
export function cweIds(values: unknown[]): string[] {
  const ids: string[] = [];
  for (const v of values) {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) ids.push(`CWE-${v}`);
    if (typeof v !== 'string') continue;
    for (const m of v.matchAll(/cwe[-_/ ]?0*(\d+)/gi)) ids.push(`CWE-${m[1]}`);
  }
  return [...new Set(ids)];
}

/** `CVE-2021-44228` for every CVE id in the values, upper case. */
export function cveIds(values: unknown[]): string[] {
  const ids: string[] = [];
  for (const v of values) if (typeof v === 'string') for (const m of v.matchAll(/cve-\d{4}-\d{4,}/gi)) ids.push(m[0].toUpperCase());
  return [...new Set(ids)];
}

/** Reference pages for CWE and CVE ids. */
export function referencesFor(cwes: string[], cves: string[]): string[] {
  return [
    ...cves.map((id) => `https://nvd.nist.gov/vuln/detail/${id}`),
    ...cwes.map((id) => `https://cwe.mitre.org/data/definitions/${id.slice(4)}.html`),
  ];
}

/** Tags as stored: trimmed, non-empty, at most 100 characters each, 50 in all, no repeats. */
export function cleanTags(values: unknown[]): string[] {
  const out = values.filter((t): t is string => typeof t === 'string').map((t) => clip(t.trim(), LIMITS.tag)).filter(Boolean);
  return [...new Set(out)].slice(0, LIMITS.tags);
}

/**
 * Host name (or IP) of a target that may be a URL, `host:port`, a bare host or an
 * IPv6 literal; lower case, without a trailing dot. Null when there is none.
 */
export function hostOf(target: unknown): string | null {
  if (typeof target !== 'string' || !target.trim()) return null;
  const t = target.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(t) ? t : `tcp://${t}`);
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
    return host || null;
  } catch {
    return null;
  }
}

const SECRET_NAME = '[A-Za-z0-9_.-]*(?:sess|token|auth|jwt|sid|secret|passw|pwd|apikey|api_key|csrf)[A-Za-z0-9_.-]*';
const SECRET_PAIR = new RegExp(`\\b(${SECRET_NAME})=([^;&\\s"',]+)`, 'gi');
const SECRET_HEADER = /\b(authorization|proxy-authorization|x-api-key)(\s*:\s*)[^\r\n]+/gi;

/**
 * Masks what a tool's evidence text may carry of the scanning session itself: values of
 * cookies and parameters named like sessions, tokens or passwords (`PHPSESSID=…`,
 * `password=…`) and Authorization headers. Names stay, so the evidence still says what was
 * seen. (Requests, responses and curl commands are not imported at all.)
 */
export function maskSecrets(text: string): string {
  if (!text.includes('=') && !text.includes(':')) return text;
  return text.replace(SECRET_HEADER, '$1$2<redacted>').replace(SECRET_PAIR, '$1=<redacted>');
}

/** A string value of evidence, bounded and with session secrets masked; null for anything empty. */
export function evidenceText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
  if (text === null || text === '') return null;
  return clip(maskSecrets(text), LIMITS.evidenceValue);
}

/** Lengths the API allows for the specification's evidence keys (plugins/findings/finding-schemas.ts). */
const SPEC_EVIDENCE: Record<string, number> = { url: 2048, method: 16, parameter: 256, payload: 8192, response_indicator: 2048 };

/** Evidence as stored: only what the tool said (no null or empty entries), the specification's keys within their lengths. */
export function compact(record: Record<string, unknown>): Evidence {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined || value === '' || (Array.isArray(value) && !value.length)) continue;
    out[key] = typeof value === 'string' && SPEC_EVIDENCE[key] ? clip(value, SPEC_EVIDENCE[key]) : value;
  }
  return out as Evidence;
}
