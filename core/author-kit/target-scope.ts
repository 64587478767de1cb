import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ScanTarget } from '../plugin-api/index.ts';

/** Is an address inside a CIDR (v4 or v6; IPv4-mapped IPv6 is treated as IPv4)? */
export function inCidr(ip: string, cidr: string): boolean {
  try {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    let addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    return addr.kind() === range.kind() && addr.match(range, bits);
  } catch {
    return false;
  }
}

/**
 * The default scope of a target: its own host (domain or IP), and for a network asset
 * every address of its CIDR. Anything in `deny` (CIDRs) is out of scope even then.
 */
export function targetScope(target: ScanTarget, deny: readonly string[] = []): (hostOrIp: string) => boolean {
  const host = (target.host ?? '').toLowerCase();
  return (candidate: string) => {
    const value = candidate.toLowerCase().replace(/^\[|\]$/g, '');
    if (isIP(value) && deny.some((cidr) => inCidr(value, cidr))) return false;
    if (target.assetType === 'network') return isIP(value) !== 0 && inCidr(value, target.name);
    return value === host;
  };
}
