import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { scanServices, scanSettings } from '../../_lib/service-scan.ts';
import { discoverHosts } from '../host-discovery.ts';

export const services: ScannerCheck = {
  id: 'network:services',
  title: 'Exposed services on live hosts',
  category: 'ports',
  maxSeverity: 'critical',
  produces: ['services'],
  description: "Discovers live hosts first, then runs the port scanner's connect scan (all live hosts at once), service detection, access checks and findings on the live hosts only; every finding names its host.",
  assetTypes: ['network'],
  async run(ctx, target) {
    const settings = scanSettings(ctx.options);
    const d = await discoverHosts(ctx, target);
    ctx.progress(1, 10);
    const hosts = d.live.map((h) => h.host).filter((h) => ctx.inScope(h));
    if (hosts.length) await scanServices(ctx, hosts, settings, { prefixHost: true, progressBase: 0.1 });
    ctx.progress(1, 1);
  },
};
