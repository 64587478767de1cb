import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, outcomeOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';
import { subdomainWordlist } from '../wordlist.ts';

export const danglingCname: ScannerCheck = {
  id: 'dns:dangling-cname',
  title: 'Dangling CNAME (subdomain takeover risk)',
  category: 'dns',
  maxSeverity: 'high',
  description: 'For the domain (and, with include_subdomains, the wordlist names) reads the CNAME and reports targets that answer NXDOMAIN for both A and AAAA.',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const names = [domain, ...(ctx.options.include_subdomains === true ? subdomainWordlist(ctx).map((w) => `${w}.${domain}`) : [])];
    for (const name of names) {
      const [cname] = await resolveOrEmpty(resolver.resolveCname(name));
      if (!cname) continue;
      const outcomes: string[] = [];
      for (const lookup of [resolver.resolve4(cname), resolver.resolve6(cname)]) {
        try {
          await lookup;
          outcomes.push('resolves');
        } catch (err) {
          outcomes.push(outcomeOf(err));
        }
      }
      // Only NXDOMAIN twice is evidence; a timeout or SERVFAIL says nothing.
      if (!outcomes.every((o) => o === 'nxdomain')) continue;
      ctx.report({
        title: `Dangling CNAME: ${name} → ${cname}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:H/A:N',
        description: `${name} is an alias of ${cname}, which does not exist (NXDOMAIN). Whoever registers that name or cloud resource serves content, cookies and mail under ${name}.`,
        remediation: `Remove the CNAME at ${name}, or reclaim ${cname}.`,
        evidence: { record_name: name, cname, target_lookup: { A: outcomes[0], AAAA: outcomes[1] }, response_indicator: `${name} CNAME ${cname}; ${cname} NXDOMAIN` },
        references: ['https://developer.mozilla.org/en-US/docs/Web/Security/Subdomain_takeovers'],
        tags: ['dns', 'takeover'],
        location: name,
      });
    }
  },
};
