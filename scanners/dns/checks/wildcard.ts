import { randomBytes } from 'node:crypto';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';

/** A label nobody would create: if it resolves, a wildcard answered. */
export function randomLabel(): string {
  return `rampart-${randomBytes(6).toString('hex')}`;
}

export const wildcard: ScannerCheck = {
  id: 'dns:wildcard',
  title: 'Wildcard DNS record',
  category: 'dns',
  maxSeverity: 'low',
  description: 'Resolves a random label under the domain (A and AAAA) and reports the addresses a wildcard returns.',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const probe = `${randomLabel()}.${domain}`;
    const addresses = [...(await resolveOrEmpty(resolver.resolve4(probe))), ...(await resolveOrEmpty(resolver.resolve6(probe)))];
    if (!addresses.length) return;
    ctx.report({
      title: `Wildcard DNS record under ${domain}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `The random name ${probe} resolves to ${addresses.join(', ')}: *.${domain} answers every name, which hides typos, eases phishing look-alikes and makes a takeover of the wildcard target cover every subdomain.`,
      remediation: 'Remove the wildcard unless it is required, and publish explicit records instead.',
      evidence: { record_name: `*.${domain}`, probe, addresses, response_indicator: `${probe} → ${addresses.join(', ')}` },
      tags: ['dns'],
      location: `*.${domain}`,
    });
  },
};
