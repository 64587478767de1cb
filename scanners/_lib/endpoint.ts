import type { ScanTarget } from '../../core/plugin-api/index.ts';

/** Where a TLS or HTTP check connects: host, port, SNI name and the origin URL. */
export interface Endpoint {
  host: string;
  port: number;
  /** SNI and hostname-verification name; undefined for IP addresses (SNI forbids them). */
  servername?: string;
  tls: boolean;
  /** `https://host:port` or `http://host:port`, no trailing slash. */
  origin: string;
  /** The URL to start from (the URL asset itself, or the origin root). */
  url: string;
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The endpoint of a target. URL assets carry their scheme and port; a domain or IP
 * asset is taken as HTTPS on 443 unless the target (or `port` option) names another port.
 * `preferTls` false makes a domain/IP default to plain HTTP on 80 (web checks).
 */
export function endpointOf(target: ScanTarget, preferTls = true): Endpoint | null {
  if (target.url) {
    const u = new URL(target.url);
    const tls = u.protocol === 'https:';
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port ? Number(u.port) : tls ? 443 : 80;
    const origin = `${u.protocol}//${bracket(host)}:${port}`;
    return { host, port, servername: isIp(host) ? undefined : host, tls, origin, url: `${origin}${u.pathname}${u.search}` };
  }
  const host = target.host ?? (target.assetType === 'network' ? undefined : target.name);
  if (!host) return null;
  const tls = preferTls || target.port === 443;
  const port = target.port ?? (tls ? 443 : 80);
  const origin = `${tls ? 'https' : 'http'}://${bracket(host)}:${port}`;
  return { host, port, servername: isIp(host) ? undefined : host, tls, origin, url: `${origin}/` };
}

/** `host:port`, the location of TLS findings. */
export function hostPort(ep: Pick<Endpoint, 'host' | 'port'>): string {
  return `${bracket(ep.host)}:${ep.port}`;
}

/** The start URL of a web target: the URL asset, or `https://<domain>/` (the port from the target when given). */
export function startUrl(target: ScanTarget): string | null {
  return endpointOf(target, true)?.url ?? null;
}
