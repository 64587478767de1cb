import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { mapLimit } from '../../_lib/pool.ts';
import { domainOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';
import { subdomainWordlist } from '../wordlist.ts';
import { randomLabel } from './wildcard.ts';

export const subdomains: ScannerCheck = {
  id: 'dns:subdomains',
  title: 'Subdomains found from a wordlist',
  category: 'discovery',
  maxSeverity: 'info',
  description: 'Only with include_subdomains: resolves <word>.<domain> for a small wordlist and lists the names that resolve (answers equal to a wildcard are dropped).',
  assetTypes: ['domain'],
  async run(ctx, target) {
    if (ctx.options.include_subdomains !== true) {
      ctx.log('INFO', 'include_subdomains is off; no enumeration');
      return;
    }
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const lookup = async (name: string) => [...(await resolveOrEmpty(resolver.resolve4(name))), ...(await resolveOrEmpty(resolver.resolve6(name)))].sort();
    const wildcardAnswer = (await lookup(`${randomLabel()}.${domain}`)).join(',');
    const words = subdomainWordlist(ctx);
    const results = await mapLimit(words, 8, async (w) => ({ name: `${w}.${domain}`, addresses: await lookup(`${w}.${domain}`) }), { signal: ctx.signal });
    const found = results.filter((r) => r.addresses.length && r.addresses.join(',') !== wildcardAnswer);
    if (!found.length) return;
    ctx.report({
      title: `${found.length} subdomains of ${domain} resolve`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N',
      description: `Of ${words.length} common names under ${domain}, these resolve: ${found.map((f) => f.name).join(', ')}. Consider adding them as assets.`,
      remediation: 'Review each name: retire unused hosts and add the rest to the inventory.',
      evidence: { record_name: domain, wordlist_size: words.length, subdomains: found, response_indicator: found.map((f) => `${f.name} → ${f.addresses.join(' ')}`).join('; ') },
      tags: ['dns', 'discovery'],
      location: domain,
    });
  },
};
