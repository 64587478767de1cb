import type { Resolver } from 'node:dns/promises';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';

/** SPF records at a name (TXT strings joined per RFC 7208 §3.3). */
async function spfRecords(resolver: Resolver, name: string): Promise<string[]> {
  const txt = await resolveOrEmpty(resolver.resolveTxt(name));
  return txt.map((parts) => parts.join('')).filter((t) => /^v=spf1(\s|$)/i.test(t));
}

/**
 * DNS-querying terms (include, a, mx, ptr, exists, redirect) counted recursively through
 * includes and redirects, as RFC 7208 §4.6.4 limits them to 10.
 */
async function countLookups(resolver: Resolver, record: string, seen: Set<string>, depth = 0): Promise<number> {
  let count = 0;
  for (const term of record.split(/\s+/).slice(1)) {
    const m = /^[+?~-]?(include:|redirect=|a\b|mx\b|ptr\b|exists:)(.*)$/i.exec(term);
    if (!m) continue;
    count++;
    const kind = m[1]!.toLowerCase();
    if ((kind === 'include:' || kind === 'redirect=') && depth < 10 && count < 50) {
      const target = m[2]!.toLowerCase();
      if (seen.has(target)) continue;
      seen.add(target);
      const [child] = await spfRecords(resolver, target);
      if (child) count += await countLookups(resolver, child, seen, depth + 1);
    }
  }
  return count;
}

export const spf: ScannerCheck = {
  id: 'dns:spf',
  title: 'Missing or weak SPF record',
  category: 'email',
  maxSeverity: 'medium',
  description: 'Reads the SPF TXT record: missing, several records, `+all`/`?all`, or more than 10 DNS lookups (counted through includes).',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const records = await spfRecords(resolver, domain);
    const problems: string[] = [];
    let lookups: number | null = null;
    if (!records.length) problems.push('no SPF record');
    else if (records.length > 1) problems.push(`${records.length} SPF records (permerror)`);
    else {
      const all = /(^|\s)([+?~-]?)all(\s|$)/i.exec(records[0]!);
      if (all && (all[2] === '+' || all[2] === '')) problems.push('`+all` lets every host send as the domain');
      if (all?.[2] === '?') problems.push('`?all` (neutral) gives receivers no policy');
      lookups = await countLookups(resolver, records[0]!, new Set([domain]));
      if (lookups > 10) problems.push(`${lookups} DNS lookups (limit 10: permerror)`);
    }
    if (!problems.length) return;
    const severe = problems.some((p) => /no SPF|\+all|permerror/.test(p));
    ctx.report({
      title: records.length ? `Weak SPF record: ${problems.join('; ')}` : 'No SPF record',
      cvss_vector: severe ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:L/A:N',
      description: `SPF for ${domain}: ${problems.join('; ')}. Receivers cannot tell forged mail from the domain's own.`,
      remediation: 'Publish one `v=spf1` record listing your senders and ending in `-all` (or `~all`), with at most 10 lookups (flatten includes).',
      evidence: { record_name: domain, records, lookups, problems, response_indicator: records.length ? records.join(' | ') : 'no TXT record starting with v=spf1' },
      references: ['https://www.rfc-editor.org/rfc/rfc7208'],
      tags: ['dns', 'email'],
      location: domain,
    });
  },
};
