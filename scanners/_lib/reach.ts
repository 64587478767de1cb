import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a service was reached, which decides a finding's CVSS attack vector
 * (CVSS v3.1 §2.1.1):
 * - `local`: a loopback address (or 0.0.0.0, which Linux connects to the host itself):
 *   only someone already on the host reaches it → AV:L ("reachable on this host only");
 * - `internal`: private, carrier-grade NAT, link-local, unique-local and reserved
 *   addresses, which the internet does not route: the attacker must be inside the
 *   organisation's networks, CVSS's "limited administrative domain" → AV:A
 *   ("reachable from the internal network");
 * - `internet`: a public address → AV:N ("reachable from the internet").
 */
export type Reach = 'local' | 'internal' | 'internet';

export const REACH: Record<Reach, { av: 'L' | 'A' | 'N'; phrase: string }> = {
  local: { av: 'L', phrase: 'reachable on this host only' },
  internal: { av: 'A', phrase: 'reachable from the internal network' },
  internet: { av: 'N', phrase: 'reachable from the internet' },
};

/** The reach of the address a service answered on (a name that is not an address counts as public). */
export function reachOf(host: string): Reach {
  if (!isIP(host)) return 'internet';
  let addr = ipaddr.parse(host);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (range === 'loopback' || range === 'unspecified') return 'local';
  // Public unicast, and the IPv6 transition ranges that carry public IPv4 addresses.
  if (range === 'unicast' || range === '6to4' || range === 'teredo') return 'internet';
  return 'internal';
}

/** `vector` (written with AV:N) with the attack vector of `reach`. */
export function withReach(vector: string, reach: Reach): string {
  return vector.replace('/AV:N/', `/AV:${REACH[reach].av}/`);
}
