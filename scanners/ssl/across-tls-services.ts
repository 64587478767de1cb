import type { CheckContext, DiscoveredService, ScannerCheck, ScanTarget } from '../../core/plugin-api/index.ts';
import { endpointOf, hostPort } from '../_lib/endpoint.ts';

/** Which discovered services a check inspects (all TLS ones, or only HTTPS for HTTP-level checks). */
export type ServiceFilter = (service: DiscoveredService) => boolean;

export const anyTls: ServiceFilter = (s) => s.tls;
export const httpsOnly: ServiceFilter = (s) => s.tls && s.service === 'https';

/**
 * The TLS endpoints one ssl check inspects. Without service discovery in the scan, the
 * target itself (a URL's port, else 443). With it, the URL's own port (when the asset is
 * a URL, or names a port) plus every discovered service the filter accepts; a guessed
 * 443 is only inspected when the port scan actually found it. Discovered IPs are
 * addressed by the asset's host name where it has one, so SNI and the hostname check
 * see the name users connect with; the same name:port is inspected once.
 */
export function tlsTargets(target: ScanTarget, services: readonly DiscoveredService[] | undefined, filter: ServiceFilter): ScanTarget[] {
  if (!services) return [target];
  const named = target.url ? new URL(target.url).hostname.replace(/^\[|\]$/g, '') : target.assetType === 'domain' ? target.name : undefined;
  const out: ScanTarget[] = [];
  const seen = new Set<string>();
  const add = (t: ScanTarget, key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(t);
  };
  const own = target.url || target.port ? endpointOf(target, true) : null;
  if (own) add(target, hostPort(own));
  for (const s of services) {
    if (!filter(s)) continue;
    const host = named ?? s.host;
    add({ assetId: target.assetId, assetType: target.assetType, name: target.name, host, port: s.port }, hostPort({ host, port: s.port }));
  }
  return out;
}

/**
 * Runs an ssl check once per TLS endpoint of the scan (see tlsTargets), consuming the
 * services found by the port scanner. One endpoint failing is logged and the others
 * still inspected; the check fails only when every endpoint failed.
 */
export function acrossTlsServices(check: ScannerCheck, filter: ServiceFilter = anyTls): ScannerCheck {
  return {
    ...check,
    consumes: ['services'],
    // A network asset has no TLS endpoint of its own: ssl inspects the TLS ports found on its hosts.
    serviceAssetTypes: ['network'],
    async run(ctx: CheckContext, target: ScanTarget) {
      const targets = tlsTargets(target, ctx.services, filter);
      if (!targets.length) {
        ctx.log('INFO', `no TLS endpoint to inspect: the scan's port discovery found no ${filter === httpsOnly ? 'HTTPS' : 'TLS'} service`);
        return;
      }
      const errors: string[] = [];
      for (const t of targets) {
        if (ctx.signal.aborted) break;
        try {
          await check.run(ctx, t);
        } catch (err) {
          const message = (err as Error)?.message ?? String(err);
          errors.push(message);
          if (targets.length > 1) ctx.log('WARN', `${t.host ?? t.name}:${t.port ?? ''}: ${message}`);
        }
      }
      if (errors.length && errors.length === targets.length) {
        throw new Error(errors.length > 1 ? `${errors[0]} (and ${errors.length - 1} more endpoint(s) failed)` : errors[0]);
      }
    },
  };
}
