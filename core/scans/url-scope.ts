import type { ScanTarget, ScanType } from '../plugin-api/index.ts';
import type { AssetType } from '../domain/asset-type.ts';

/**
 * What a composed scan (`full`, `quick`, `custom`) of a URL asset covers. A URL names one
 * origin (scheme, host, port): by default only that origin is scanned, so the port
 * scanner looks at the URL's port alone and the ssl checks inspect that port only. With
 * `options.include_host: true` the rest of the host is scanned too (every port of the
 * `ports` option, and the TLS services found there), as a scan of the host would.
 * Explicit `port` and `network` scans of a URL asset are port scans of its host and are
 * not narrowed.
 */
export type UrlScopeMode = 'origin' | 'host';

export interface ScanScopeView {
  mode: UrlScopeMode;
  /** The URL's origin (`http://127.0.0.1:8080`). */
  origin: string;
  /** The host whose other ports are included in `host` mode. */
  host: string;
  /** Ports the port scanner was limited to, or null when the `ports` option applies (`host` mode). */
  ports: number[] | null;
}

const COMPOSED: readonly string[] = ['full', 'quick', 'custom'];

interface UrlAsset {
  type: AssetType;
  name?: string;
}

function originOf(url: string): { origin: string; host: string; port: number } {
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { origin: `${u.protocol}//${u.host}`, host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** The scope mode of a scan, or null when the scan is not a composed scan of a URL asset. */
export function urlScopeMode(scanType: string, asset: UrlAsset, options: Readonly<Record<string, unknown>>): UrlScopeMode | null {
  if (asset.type !== 'url' || !COMPOSED.includes(scanType)) return null;
  return options.include_host === true ? 'host' : 'origin';
}

/**
 * Options as stored for a new scan: a composed scan of a URL asset records its scope
 * (`include_host` false unless asked), so the choice shows in the scan's options.
 */
export function withScopeOption(scanType: ScanType, asset: UrlAsset, options: Record<string, unknown>): Record<string, unknown> {
  if (urlScopeMode(scanType, asset, options) === null || typeof options.include_host === 'boolean') return options;
  return { ...options, include_host: false };
}

/**
 * Why the options contradict the scope, or null: in `origin` mode a `ports` option naming
 * other ports of the host would be silently ignored, so it is refused instead.
 */
export function scopeProblem(scanType: string, asset: UrlAsset, options: Readonly<Record<string, unknown>>): string | null {
  if (urlScopeMode(scanType, asset, options) !== 'origin' || options.ports === undefined || !asset.name) return null;
  const { port } = originOf(asset.name);
  if (String(options.ports).trim() === String(port)) return null;
  return `a ${scanType} scan of a URL asset covers the URL's origin only (port ${port}); set options.include_host to true to scan other ports of the host`;
}

/** The options a check receives: in `origin` mode the port scanner is limited to the URL's port. */
export function checkOptions(scanType: string, target: ScanTarget, options: Record<string, unknown>): Record<string, unknown> {
  if (!target.url || urlScopeMode(scanType, { type: target.assetType }, options) !== 'origin') return options;
  return { ...options, ports: String(originOf(target.url).port) };
}

/** The scope as the scan detail and results show it; null for scans that are not composed scans of a URL. */
export function scopeView(scanType: string, asset: { type: AssetType; name: string }, options: Readonly<Record<string, unknown>>): ScanScopeView | null {
  const mode = urlScopeMode(scanType, asset, options);
  if (!mode) return null;
  const { origin, host, port } = originOf(asset.name);
  return { mode, origin, host, ports: mode === 'origin' ? [port] : null };
}
