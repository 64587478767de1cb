import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';

export const caa: ScannerCheck = {
  id: 'dns:caa',
  title: 'No CAA record',
  category: 'dns',
  maxSeverity: 'low',
  description: 'Looks for CAA at the domain and its parents (RFC 8659 tree climbing, stopping above the registrable name).',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const labels = domain.split('.');
    const asked: string[] = [];
    // Stop at two labels: a public suffix never carries CAA for its customers.
    for (let i = 0; i <= labels.length - 2; i++) {
      const name = labels.slice(i).join('.');
      asked.push(name);
      const records = await resolveOrEmpty(resolver.resolveCaa(name));
      if (records.length) {
        ctx.log('INFO', `CAA found at ${name}: ${records.map((r) => JSON.stringify(r)).join(', ')}`);
        return;
      }
    }
    ctx.report({
      title: 'No CAA record restricts certificate issuance',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:L/A:N',
      description: `None of ${asked.join(', ')} has a CAA record, so any public CA may issue certificates for ${domain}.`,
      remediation: 'Publish `CAA 0 issue "<your CA>"` (and `iodef`) at the domain.',
      evidence: { record_name: domain, names_queried: asked, response_indicator: 'no CAA records' },
      references: ['https://www.rfc-editor.org/rfc/rfc8659'],
      tags: ['dns'],
      location: domain,
    });
  },
};
