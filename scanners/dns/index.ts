import { defineScanner } from '../../core/plugin-api/index.ts';
import { caa } from './checks/caa.ts';
import { danglingCname } from './checks/dangling-cname.ts';
import { dmarc } from './checks/dmarc.ts';
import { dnssec } from './checks/dnssec.ts';
import { spf } from './checks/spf.ts';
import { subdomains } from './checks/subdomains.ts';
import { wildcard } from './checks/wildcard.ts';
import { zoneTransferCheck } from './checks/zone-transfer.ts';

/** DNS configuration and e-mail authentication checks (see README.md). */
export default defineScanner({
  name: 'dns',
  version: '1.0.0',
  apiVersion: '^1.5.0',
  description: 'SPF, DMARC, CAA, zone transfer, dangling CNAME, DNSSEC, wildcard records and subdomain enumeration.',
  capabilities: ['net:outbound'],
  scanTypes: ['dns'],
  assetTypes: ['domain'],
  options: {
    resolvers: { type: 'string[]', description: 'Resolvers to ask (`ip` or `ip:port`); default: the system resolvers.' },
    dns_timeout_ms: { type: 'integer', default: 2000, min: 100, max: 30000, description: 'Time limit of one DNS query.' },
    axfr_port: { type: 'integer', default: 53, min: 1, max: 65535, description: 'TCP port of the name servers for AXFR.' },
    include_subdomains: { type: 'boolean', default: false, description: 'Enumerate subdomains from the wordlist (and check their CNAMEs).' },
    subdomain_wordlist: { type: 'string[]', description: 'Labels to try instead of the built-in list of 30.' },
  },
  checks: [spf, dmarc, caa, zoneTransferCheck, danglingCname, dnssec, wildcard, subdomains],
});
