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
  return cidrMatcher([cidr])(ip);
}

/**
 * `inCidr` against a list, its ranges parsed once: what a check's every request and
 * connection asks of the deny list. Entries that are not CIDRs match nothing.
 */
export function cidrMatcher(cidrs: readonly string[]): (ip: string) => boolean {
  const ranges = cidrs.flatMap((c) => {
    try {
      return [ipaddr.parseCIDR(c)];
    } catch {
      return [];
    }
  });
  return (ip) => {
    if (!ranges.length) return false;
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.parse(ip);
    } catch {
      return false;
    }
    const embedded = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : null;
    return ranges.some(([range, bits]) => [addr, embedded].some((a) => a !== null && a.kind() === range.kind() && a.match(range, bits)));
  };
}

/**
 * The default scope of a target: its own host (domain or IP), and for a network asset
 * every address of its CIDR. Anything in `deny` (CIDRs) is out of scope even then.
 */
export function targetScope(target: ScanTarget, deny: readonly string[] = []): (hostOrIp: string) => boolean {
  const host = (target.host ?? '').toLowerCase();
  const denied = cidrMatcher(deny);
  const inNetwork = target.assetType === 'network' ? cidrMatcher([target.name]) : null;
  return (candidate: string) => {
    const value = candidate.toLowerCase().replace(/^\[|\]$/g, '');
    if (isIP(value) && denied(value)) return false;
    if (inNetwork) return isIP(value) !== 0 && inNetwork(value);
    return value === host;
  };
}
