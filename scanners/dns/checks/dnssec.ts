import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, parseServer, rawQuery, resolversOf } from '../dns-client.ts';

export const dnssec: ScannerCheck = {
  id: 'dns:dnssec',
  title: 'DNSSEC not enabled',
  category: 'dns',
  maxSeverity: 'low',
  description: 'Finds the zone apex (SOA), asks for DNSKEY with the DO bit and reports a zone with no DNSKEY. Presence only: signatures are not validated.',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const server = parseServer((await resolversOf(ctx))[0]!);
    const soa = await rawQuery(ctx, server, domain, 'SOA');
    const apex = [...(soa.packet.answers ?? []), ...(soa.packet.authorities ?? [])].find((a) => a.type === 'SOA')?.name?.toLowerCase();
    if (!apex) {
      ctx.log('WARN', `no SOA for ${domain} (rcode ${soa.rcode}); DNSSEC not judged`);
      return;
    }
    const keys = await rawQuery(ctx, server, apex, 'DNSKEY', true);
    if (keys.rcode !== 'NOERROR') {
      ctx.log('WARN', `DNSKEY ${apex}: rcode ${keys.rcode}; DNSSEC not judged`);
      return;
    }
    const answers = keys.packet.answers ?? [];
    const dnskeys = answers.filter((a) => a.type === 'DNSKEY');
    if (dnskeys.length) {
      ctx.log('INFO', `${apex} publishes ${dnskeys.length} DNSKEY(s), ${answers.filter((a) => a.type === 'RRSIG').length} RRSIG(s)`);
      return;
    }
    ctx.report({
      title: `DNSSEC not enabled for ${apex}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:L/A:N',
      description: `The zone ${apex} publishes no DNSKEY, so resolvers cannot detect forged answers (cache poisoning, on-path spoofing).`,
      remediation: 'Sign the zone (most DNS providers offer one-click DNSSEC) and publish the DS record at the registrar.',
      evidence: { record_name: apex, query: 'DNSKEY (DO bit set)', rcode: keys.rcode, answer_count: answers.length, response_indicator: `DNSKEY ${apex}: NOERROR, no DNSKEY records` },
      references: ['https://www.rfc-editor.org/rfc/rfc4033'],
      tags: ['dns', 'dnssec'],
      location: apex,
    });
  },
};
