import type { Severity } from '../domain/severity.ts';
import type { ExportFilters } from './export-views.ts';

/**
 * The words of the PDF's management page: filters, dates and the posture sentence as a
 * reader who never saw the API would say them.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const SORT_WORDS: Record<string, string> = {
  severity: 'severity', cvss: 'CVSS score', discovered_at: 'discovery date', updated_at: 'last update', title: 'title', status: 'status',
};

/** "24 November 2026" (UTC). */
export function dayInWords(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "24 November 2026, 09:05 UTC". */
export function dateTimeInWords(ms: number): string {
  const d = new Date(ms);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${dayInWords(ms)}, ${hh}:${mm} UTC`;
}

const orList = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** The export's scope in words; `assetName` names the filtered asset when there is one. */
export function filtersInWords(f: ExportFilters, assetName?: string | null): string {
  const parts: string[] = [];
  if (f.severity?.length) parts.push(`of severity ${orList(f.severity)}`);
  if (f.status) parts.push(`with status ${f.status.replace('_', ' ')}`);
  if (f.asset_id) parts.push(`on asset ${assetName ? `“${assetName}”` : f.asset_id}`);
  if (f.scan_id) parts.push(`found by scan ${f.scan_id}`);
  if (f.cvss_min !== undefined && f.cvss_max !== undefined) parts.push(`with CVSS from ${f.cvss_min.toFixed(1)} to ${f.cvss_max.toFixed(1)}`);
  else if (f.cvss_min !== undefined) parts.push(`with CVSS ${f.cvss_min.toFixed(1)} or more`);
  else if (f.cvss_max !== undefined) parts.push(`with CVSS ${f.cvss_max.toFixed(1)} or less`);
  if (f.search) parts.push(`matching “${f.search}”`);
  let scope = parts.length ? `Findings ${parts.join(', ')}` : 'All findings of the tenant';
  if (f.per_page) scope += ` (page ${f.page ?? 1}, ${f.per_page} per page)`;
  const sort = SORT_WORDS[f.sort_by ?? 'discovered_at'] ?? f.sort_by;
  return `${scope}; listed by ${sort}, ${f.sort_order === 'asc' ? 'lowest first' : 'highest first'}.`.replace('discovery date, highest first', 'discovery date, newest first').replace('discovery date, lowest first', 'discovery date, oldest first');
}

export interface PostureFigures {
  /** Findings open or confirmed, by severity. */
  unresolved: Record<Severity, number>;
  last30: { new: number; resolved: number };
}

/** One sentence: the worst unresolved severity, what it is made of, and the month's direction. */
export function postureSentence(p: PostureFigures): string {
  const u = p.unresolved;
  const total = Object.values(u).reduce((a, b) => a + b, 0);
  const level = u.critical > 0 ? 'critical' : u.high > 0 ? 'high' : u.medium > 0 ? 'moderate' : total > 0 ? 'low' : 'clear';
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const what = total === 0
    ? 'no finding in scope is open or confirmed'
    : `${plural(total, 'finding')} in scope ${total === 1 ? 'is' : 'are'} open or confirmed, ${u.critical} critical and ${u.high} high`;
  const net = p.last30.new - p.last30.resolved;
  const trend = net > 0 ? `growing (${p.last30.new} new against ${p.last30.resolved} resolved in 30 days)`
    : net < 0 ? `shrinking (${p.last30.resolved} resolved against ${p.last30.new} new in 30 days)`
      : `steady (${p.last30.new} new and ${p.last30.resolved} resolved in 30 days)`;
  return `Risk posture: ${level}. ${what[0]!.toUpperCase()}${what.slice(1)}; the backlog is ${trend}.`;
}
