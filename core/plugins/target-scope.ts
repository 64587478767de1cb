import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ScanTarget } from '../plugin-api/index.ts';
import { embeddedIPv4 } from '../outbound/embedded-ipv4.ts';

/**
 * Is an address inside a CIDR (v4 or v6)? An IPv6 address that carries an IPv4 address
 * (IPv4-mapped or -compatible, NAT64, 6to4, Teredo) also matches as that IPv4 address,
 * so a deny list of IPv4 ranges catches every spelling of them.
 */
export function inCidr(ip: string, cidr: string): boolean {
  try {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    const addr = ipaddr.parse(ip);
    const embedded = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : null;
    return [addr, embedded].some((a) => a !== null && a.kind() === range.kind() && a.match(range, bits));
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
