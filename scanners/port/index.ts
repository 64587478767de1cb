import { defineScanner, type CheckContext, type ScanTarget } from '../../core/plugin-api/index.ts';
import { portsProblem } from '../_lib/port-list.ts';
import { scanAddresses } from '../_lib/port-targets.ts';
import { SCAN_OPTIONS } from '../_lib/scan-options.ts';
import { scanServices, scanSettings } from '../_lib/service-scan.ts';

const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** TCP connect scan of the target's addresses (all at once), service and access checks on open ports, findings. */
async function tcpScan(ctx: CheckContext, target: ScanTarget): Promise<void> {
  const settings = scanSettings(ctx.options);
  const { addresses, truncated } = await scanAddresses(ctx, target, num(ctx.options.max_hosts, 256));
  if (truncated) ctx.log('WARN', `network larger than max_hosts; scanning the first ${addresses.length} addresses`);
  if (!addresses.length) throw new Error(`no address of ${target.name} is in scope (deny list or unresolvable)`);
  await scanServices(ctx, addresses, settings, { prefixHost: target.assetType === 'network' });
}

export default defineScanner({
  name: 'port',
  version: '1.1.0',
  apiVersion: '^1.5.0',
  description: 'TCP connect port scan (adaptive per-host timeouts, large ranges spread over threads) with service detection (HTTP, TLS, SSH, SMTP, FTP, telnet, Redis, MySQL/MariaDB, PostgreSQL, NATS, MQTT, AMQP, epmd), access checks on brokers and databases, and findings scored for where the service was reached; hands the services it identified to later checks (the ssl scanner inspects the TLS ones).',
  capabilities: ['net:outbound'],
  options: {
    ...SCAN_OPTIONS,
    max_hosts: { type: 'integer', min: 1, max: 65536, default: 256, description: 'Addresses of a network asset scanned at most.' },
  },
  // Refuses a `ports` option it could not scan when the scan or schedule is created, not at every run.
  validateOptions(options) {
    const problem = portsProblem(options.ports);
    return problem ? [{ option: 'ports', message: problem }] : [];
  },
  scanTypes: ['port'],
  assetTypes: ['ip', 'domain', 'url', 'network'],
  checks: [
    {
      id: 'port:tcp-services',
      title: 'Open TCP ports and exposed services',
      category: 'ports',
      maxSeverity: 'critical',
      produces: ['services'],
      description: 'Connect scan of the `ports` option (default: common ports), service detection on open ports, access checks (Redis, NATS and MQTT without credentials, AMQP guest/guest, password-less PostgreSQL and MySQL/MariaDB accounts, epmd node names), findings for those, for reachable databases and brokers and for clear-text telnet/FTP.',
      run: tcpScan,
    },
  ],
});
