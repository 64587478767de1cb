import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import type { ScanTarget } from '../plugin-api/index.ts';
import type { AssetType } from '../domain/asset-type.ts';
import { inCidr } from '../plugins/target-scope.ts';
import { embeddedIPv4Cidr } from '../outbound/embedded-ipv4.ts';

/**
 * A scan's scope as plain data (it crosses into worker threads): the asset's host or
 * CIDR, the addresses a domain resolved to when the scan started, and the deny list.
 */
export interface ScopeSpec {
  assetType: AssetType;
  host: string | null;
  cidr: string | null;
  /** Addresses of a domain/URL host at plan time that are not denied. */
  addresses: string[];
  deny: string[];
}

/** Raised when the whole target is on the deny list. */
export class TargetDeniedError extends Error {}

/** The deny list in force: configured CIDRs, plus loopback and this host's own addresses when denySelf. */
export function denyList(config: { denyNetworks: readonly string[]; denySelf: boolean }): string[] {
  const deny = [...config.denyNetworks];
  if (!config.denySelf) return deny;
  deny.push('127.0.0.0/8', '::1/128', '0.0.0.0/32', '::/128');
  for (const list of Object.values(networkInterfaces())) {
    for (const nic of list ?? []) deny.push(`${nic.address.replace(/%.*$/, '')}/${nic.family === 'IPv4' ? 32 : 128}`);
  }
  return [...new Set(deny)];
}

export function isDenied(ip: string, deny: readonly string[]): boolean {
  return deny.some((cidr) => inCidr(ip, cidr));
}

/**
 * True when every address of the CIDR is denied (a deny entry contains it). An IPv6
 * CIDR inside one of the /96 forms that carry IPv4 (`::ffff:127.0.0.0/104`,
 * `64:ff9b::7f00:0/120`) is judged as the IPv4 network it names.
 */
function networkDenied(cidr: string, deny: readonly string[]): boolean {
  const [parsed, parsedBits] = ipaddr.parseCIDR(cidr);
  const [net, bits] = (parsed.kind() === 'ipv6' && embeddedIPv4Cidr(parsed as ipaddr.IPv6, parsedBits)) || [parsed, parsedBits];
  return deny.some((d) => {
    try {
      const [dn, dbits] = ipaddr.parseCIDR(d);
      return dn.kind() === net.kind() && dbits <= bits && net.match(dn, dbits);
    } catch {
      return false;
    }
  });
}

/** The host part of an asset as checks see it (URL host, domain, IP; none for a CIDR). */
export function targetOf(asset: { id: string; type: AssetType; name: string }): ScanTarget {
  if (asset.type === 'url') {
    const url = new URL(asset.name);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { assetId: asset.id, assetType: 'url', name: asset.name, host: url.hostname.replace(/^\[|\]$/g, ''), port, url: asset.name };
  }
  if (asset.type === 'network') return { assetId: asset.id, assetType: 'network', name: asset.name };
  return { assetId: asset.id, assetType: asset.type, name: asset.name, host: asset.name };
}

/** Refusal that needs no DNS (IP and CIDR assets): used when a scan is created. */
export function staticDenial(target: ScanTarget, deny: readonly string[]): string | null {
  if (target.assetType === 'network' && networkDenied(target.name, deny)) return `${target.name} is inside the scan deny list.`;
  if (target.host && isIP(target.host) && isDenied(target.host, deny)) return `${target.host} is on the scan deny list.`;
  return null;
}

/**
 * Builds the scope when a scan starts. A domain is resolved once: denied addresses are
 * dropped, and a host whose every address is denied makes the scan fail (target_denied).
 */
export async function buildScope(target: ScanTarget, deny: string[], resolve = (h: string) => lookup(h, { all: true, verbatim: true })): Promise<ScopeSpec> {
  const denial = staticDenial(target, deny);
  if (denial) throw new TargetDeniedError(denial);
  const spec: ScopeSpec = { assetType: target.assetType, host: target.host?.toLowerCase() ?? null, cidr: target.assetType === 'network' ? target.name : null, addresses: [], deny };
  if (spec.host && !isIP(spec.host)) {
    let found: string[] = [];
    try {
      found = (await resolve(spec.host)).map((a) => a.address);
    } catch {
      return spec; // unresolvable: checks will report it as their own error
    }
    spec.addresses = found.filter((ip) => !isDenied(ip, deny));
    if (found.length && !spec.addresses.length) throw new TargetDeniedError(`${spec.host} resolves only to deny-listed addresses (${found.join(', ')}).`);
  } else if (spec.host) {
    spec.addresses = [spec.host];
  }
  return spec;
}

/** The `inScope` function checks get: inside the asset and never deny-listed. */
export function scopeFunction(spec: ScopeSpec): (hostOrIp: string) => boolean {
  return (candidate) => {
    const value = candidate.toLowerCase().replace(/^\[|\]$/g, '');
    if (isIP(value)) {
      if (isDenied(value, spec.deny)) return false;
      if (spec.cidr) return inCidr(value, spec.cidr);
      return spec.addresses.includes(normalIp(value));
    }
    return spec.host !== null && value === spec.host;
  };
}

function normalIp(ip: string): string {
  try {
    const addr = ipaddr.process(ip);
    return addr.kind() === 'ipv6' ? (addr as ipaddr.IPv6).toRFC5952String() : addr.toString();
  } catch {
    return ip;
  }
}
