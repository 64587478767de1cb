import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { mapLimit } from '../../_lib/pool.ts';
import { parsePorts } from '../../_lib/port-list.ts';
import { exposureFindings } from '../../_lib/risky-exposures.ts';
import { probeService, serviceOf } from '../../_lib/service-probes.ts';
import { scanPorts } from '../../_lib/tcp-connect.ts';
import { discoverHosts } from '../host-discovery.ts';

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export const services: ScannerCheck = {
  id: 'network:services',
  title: 'Exposed services on live hosts',
  category: 'ports',
  maxSeverity: 'critical',
  produces: ['services'],
  description: "Discovers live hosts first, then runs the port scanner's connect scan, service detection and risky-exposure findings on each live host only; every finding names its host.",
  assetTypes: ['network'],
  async run(ctx, target) {
    const d = await discoverHosts(ctx, target);
    const ports = parsePorts(ctx.options.ports);
    for (const { host } of d.live) {
      if (!ctx.inScope(host)) continue;
      const result = await scanPorts(host, ports, { concurrency: num(ctx.options.concurrency, 300), timeoutMs: num(ctx.options.connect_timeout_ms, 1500), signal: ctx.signal });
      ctx.log('INFO', `${host}: ${result.open.length} open, ${result.closed} closed, ${result.filtered} filtered of ${ports.length} ports`);
      await mapLimit(result.open, 16, async (port) => {
        const info = await probeService(host, port, { timeoutMs: num(ctx.options.probe_timeout_ms, 2000), signal: ctx.signal });
        ctx.addService(serviceOf(host, port, info));
        for (const f of exposureFindings(host, port, info)) {
          ctx.report({ ...f, title: `${host}: ${f.title}`, evidence: { ...f.evidence, host } });
        }
      });
    }
  },
};
