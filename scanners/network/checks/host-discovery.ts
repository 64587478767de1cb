import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { discoverHosts } from '../host-discovery.ts';

export const hostDiscovery: ScannerCheck = {
  id: 'network:host-discovery',
  title: 'Live hosts in the network',
  category: 'discovery',
  maxSeverity: 'info',
  description: 'TCP-connect host discovery over the CIDR on common ports (bounded by max_hosts, concurrency and rate); reports the live hosts and the ports that answered.',
  assetTypes: ['network'],
  async run(ctx, target) {
    const d = await discoverHosts(ctx, target);
    if (!d.live.length) return;
    ctx.report({
      title: `${d.live.length} live hosts in ${d.cidr}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
      description: `Of ${d.scanned} addresses of ${d.cidr} tried on ${d.ports.length} common ports, these answered: ${d.live.map((h) => h.host).join(', ')}.`,
      remediation: 'Check that every live host is known and inventoried; add unknown ones as assets.',
      evidence: {
        hosts: d.live,
        addresses_tried: d.scanned,
        truncated: d.truncated,
        discovery_ports: d.ports,
        response_indicator: d.live.map((h) => `${h.host} (${h.answered === 'open' ? `open ${h.open.join(',')}` : 'refused'})`).join('; '),
      },
      tags: ['network', 'discovery'],
      location: d.cidr,
    });
  },
};
