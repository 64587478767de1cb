import { defineScanner } from '../../core/plugin-api/index.ts';
import { SCAN_OPTIONS } from '../_lib/scan-options.ts';
import { hostDiscovery } from './checks/host-discovery.ts';
import { services } from './checks/services.ts';

/** Network assets: host discovery, then the port scanner's checks per live host (see README.md). */
export default defineScanner({
  name: 'network',
  version: '1.1.0',
  apiVersion: '^1.5.0',
  description: 'TCP-connect host discovery across a CIDR, then port scan (all live hosts at once), service detection, access checks and exposure findings on each live host.',
  capabilities: ['net:outbound'],
  scanTypes: ['network'],
  assetTypes: ['network'],
  options: {
    max_hosts: { type: 'integer', default: 256, min: 1, max: 4096, description: 'Addresses of the network tried at most.' },
    discovery_ports: { type: 'string', default: '22,80,443,445,3389,8080,8443,21,23,25,53,135,139,3306,5432', description: 'Ports tried for host discovery (port-list syntax).' },
    discovery_concurrency: { type: 'integer', default: 100, min: 1, max: 1000, description: 'Discovery connects in flight.' },
    discovery_rate: { type: 'integer', default: 500, min: 0, max: 10000, description: 'Discovery connects started per second at most (0: unbounded).' },
    discovery_timeout_ms: { type: 'integer', default: 800, min: 50, max: 10000, description: 'A discovery connect without answer within this is filtered.' },
    refused_means_up: { type: 'boolean', default: true, description: 'Count a refused connect (RST) as a live host.' },
    ...SCAN_OPTIONS,
  },
  checks: [hostDiscovery, services],
});
