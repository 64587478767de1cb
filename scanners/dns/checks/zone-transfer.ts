import ipaddr from 'ipaddr.js';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, resolveOrEmpty, resolverFor, zoneTransfer } from '../dns-client.ts';

/** Never contacted even when a zone names them as name servers: link-local (169.254.0.0/16, fe80::/10; cloud metadata). */
function neverContacted(ip: string): boolean {
  try {
    return ipaddr.process(ip).range() === 'linkLocal';
  } catch {
    return false;
  }
}

export const zoneTransferCheck: ScannerCheck = {
  id: 'dns:zone-transfer',
  title: 'Zone transfer (AXFR) allowed',
  category: 'dns',
  maxSeverity: 'medium',
  description: 'Asks every name server of the zone (addresses on the scan deny list excepted) for AXFR over TCP (port `axfr_port`, default 53) and reports servers that send the zone.',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const resolver = await resolverFor(ctx);
    const port = Number(ctx.options.axfr_port ?? 53);
    const nameServers = await resolveOrEmpty(resolver.resolveNs(domain));
    if (!nameServers.length) {
      ctx.log('INFO', `${domain} has no NS records (not a zone apex); zone transfer not tried`);
      return;
    }
    for (const ns of nameServers) {
      const addresses = [...(await resolveOrEmpty(resolver.resolve4(ns))), ...(await resolveOrEmpty(resolver.resolve6(ns)))].filter((ip) => !neverContacted(ip));
      for (const ip of addresses) {
        try {
          // A zone may name any address as its server: the scan's deny list still holds.
          await ctx.resolve(ip, { outsideScope: true });
        } catch (err) {
          ctx.log('INFO', `AXFR ${domain} @${ns} (${ip}) not asked: ${(err as Error).message}`);
          continue;
        }
        let result;
        try {
          result = await zoneTransfer(ctx, { host: ip, port }, domain);
        } catch (err) {
          ctx.log('INFO', `AXFR ${domain} @${ns} (${ip}:${port}): ${(err as Error).message}`);
          continue;
        }
        if (result.status !== 'transferred') {
          ctx.log('INFO', `AXFR ${domain} @${ns} (${ip}:${port}) refused (${result.rcode})`);
          continue;
        }
        const names = [...new Set(result.records.map((r) => r.name))];
        ctx.report({
          title: `Zone transfer of ${domain} allowed by ${ns}`,
          cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
          description: `${ns} (${ip}) answered an AXFR request for ${domain} from the scanner with the whole zone: ${result.records.length} records, ${names.length} names, including hosts never meant to be listed.`,
          remediation: 'Allow AXFR only to secondary servers (by address and TSIG key).',
          evidence: {
            name_server: ns,
            address: `${ip}:${port}`,
            record_count: result.records.length,
            names: names.slice(0, 50),
            response_indicator: result.records.slice(0, 5).map((r) => `${r.name} ${r.type}`).join(', '),
          },
          references: ['https://www.rfc-editor.org/rfc/rfc5936'],
          tags: ['dns', 'axfr'],
          location: ns,
        });
        break;
      }
    }
  },
};
