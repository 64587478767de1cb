import { isIP } from 'node:net';
import type { AssetType } from '../domain/asset-type.ts';
import { inCidr } from '../plugins/target-scope.ts';
import { targetOf } from './scan-scope.ts';

/**
 * When a scan may run active checks (`options.active: true`: injection payloads sent to
 * the target). They change what they touch (forms are submitted, queries run), so they
 * need the asset's ownership verified. The one exception is the loopback trial: an
 * operator who switched the safety keys off (`scans.requireVerifiedAsset` and
 * `scans.denySelf` false, see docs/configuration.md) may try them on a loopback asset, a
 * server on their own machine; that switch never opens active checks on other hosts.
 */
export interface ActiveScanConfig {
  requireVerifiedAsset: boolean;
  denySelf: boolean;
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** True when the asset's host is a loopback address literal or `localhost`. */
export function loopbackAsset(asset: { id?: string; type: AssetType; name: string }): boolean {
  const host = targetOf({ id: asset.id ?? '', type: asset.type, name: asset.name }).host?.toLowerCase();
  if (!host) return false;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && LOOPBACK.some((cidr) => inCidr(host, cidr));
}

/** Why active checks are refused for this asset, or null when they may run. */
export function activeScanRefusal(config: ActiveScanConfig, asset: { type: AssetType; name: string; verified?: boolean | number }, options: Readonly<Record<string, unknown>>): string | null {
  if (options.active !== true || Boolean(asset.verified)) return null;
  if (!config.requireVerifiedAsset && !config.denySelf && loopbackAsset(asset)) return null;
  return "Active checks (options.active) send attack payloads and need a verified asset (POST /api/assets/{id}/verify); the loopback trial (scans.requireVerifiedAsset and scans.denySelf both false) allows them only on loopback assets.";
}
