import { defineScanner, type CheckContext, type ScanTarget } from '../../core/plugin-api/index.ts';
import { parsePorts, portsProblem } from '../_lib/port-list.ts';
import { exposureFindings } from '../_lib/risky-exposures.ts';
import { probeService, serviceOf } from '../_lib/service-probes.ts';
import { scanAddresses } from '../_lib/port-targets.ts';
import { scanPorts } from '../_lib/tcp-connect.ts';

const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** TCP connect scan, service detection on open ports, findings for risky exposures. */
async function tcpScan(ctx: CheckContext, target: ScanTarget): Promise<void> {
  const ports = parsePorts(ctx.options.ports);
  const concurrency = num(ctx.options.concurrency, 300);
  const connectTimeoutMs = num(ctx.options.connect_timeout_ms, 1500);
  const probeTimeoutMs = num(ctx.options.probe_timeout_ms, 2000);
  const { addresses, truncated } = await scanAddresses(target, ctx.inScope, num(ctx.options.max_hosts, 256));
  if (truncated) ctx.log('WARN', `network larger than max_hosts; scanning the first ${addresses.length} addresses`);
  if (!addresses.length) throw new Error(`no address of ${target.name} is in scope (deny list or unresolvable)`);
  for (const host of addresses) {
    const result = await scanPorts(host, ports, { concurrency, timeoutMs: connectTimeoutMs, signal: ctx.signal });
    ctx.log('INFO', `${host}: ${result.open.length} open, ${result.closed} closed, ${result.filtered} filtered of ${ports.length} ports`);
    await mapLimit(result.open, 16, async (port) => {
      const info = await probeService(host, port, { timeoutMs: probeTimeoutMs, signal: ctx.signal });
      ctx.addService(serviceOf(host, port, info));
      for (const finding of exposureFindings(host, port, info)) ctx.report(finding);
    });
  }
}

export default defineScanner({
  name: 'port',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'TCP connect port scan with service detection (HTTP, TLS, SSH, SMTP, FTP, Redis, MySQL/MariaDB, PostgreSQL, telnet) and risky-exposure findings; hands the services it identified to later checks (the ssl scanner inspects the TLS ones).',
  capabilities: ['net:outbound'],
  options: {
    concurrency: { type: 'integer', min: 1, max: 2000, default: 300, description: 'Connects in flight per host (keep well under ulimit -n).' },
    connect_timeout_ms: { type: 'integer', min: 50, max: 60000, default: 1500, description: 'A port that does not answer within this is filtered.' },
    probe_timeout_ms: { type: 'integer', min: 100, max: 60000, default: 2000, description: 'Time limit of each service probe.' },
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
      description: 'Connect scan of the `ports` option (default: common ports), service detection on open ports, findings for unauthenticated Redis, reachable databases and clear-text telnet/FTP.',
      run: tcpScan,
    },
  ],
});
