import ipaddr from 'ipaddr.js';
import { embeddedIPv4Cidr, normaliseAddress, type Address } from './embedded-ipv4.ts';

// ::/8 is reserved by the IETF (RFC 4291 §2.4): ipaddr.js names only ::, ::1 and the IPv4
// forms inside it, and called the rest (e.g. ::1:0:0:1) unicast.
const RESERVED_V6 = ipaddr.parseCIDR('::/8') as [ipaddr.IPv6, number];

/**
 * Which IP addresses outbound requests may reach. Deny by default: only globally
 * routable unicast addresses pass. Private (RFC 1918), loopback, link-local
 * (169.254.0.0/16, fe80::/10), unique-local (fc00::/7), CGNAT (100.64.0.0/10),
 * multicast, unspecified, broadcast and documentation/reserved ranges (all of ::/8 but
 * ::1 and the IPv4 forms) are refused
 * unless an admin allow-lists a CIDR (`outbound.allowPrivateCidrs`).
 *
 * An IPv6 address that carries an IPv4 address (IPv4-compatible, -mapped, -translated,
 * NAT64, 6to4, Teredo: see embedded-ipv4.ts) is judged as the IPv4 address it carries,
 * both against the ranges and against the allow-list: `[::127.0.0.1]` is loopback and
 * `2002:808:808::1` is as public as 8.8.8.8. This class is the one place every
 * outbound caller (webhooks, scan callbacks, SIEM, verification probes, and the
 * connect-time lookup under all of them) asks.
 */
export class AddressPolicy {
  readonly #allow: Array<[Address, number]>;
  readonly #deny: Array<[Address, number]>;

  /** `denyCidrs` are refused even when allow-listed (verification.denyNetworks keeps link-local out that way). */
  constructor(allowCidrs: readonly string[] = [], denyCidrs: readonly string[] = []) {
    this.#allow = allowCidrs.map((cidr) => cidrEntry(cidr));
    this.#deny = denyCidrs.map((cidr) => cidrEntry(cidr));
  }

  /** Validates a CIDR list (for the config schema); returns the offending entry or null. */
  static invalidCidr(cidrs: readonly string[]): string | null {
    for (const cidr of cidrs) {
      try {
        ipaddr.parseCIDR(cidr);
      } catch {
        return cidr;
      }
    }
    return null;
  }

  /** The special range an address is in (`unicast` for a public one); throws on a non-IP. */
  static rangeOf(ip: string): string {
    return normaliseAddress(ip).range();
  }

  /** Null when the address may be reached, otherwise the name of the range that forbids it. */
  refusal(ip: string): string | null {
    let addr: Address;
    try {
      addr = normaliseAddress(ip);
    } catch {
      return 'invalid address';
    }
    const inside = ([net, bits]: [Address, number]) => net.kind() === addr.kind() && addr.match(net as never, bits);
    if (this.#deny.some(inside)) return 'denied network';
    if (this.#allow.some(inside)) return null;
    const range = addr.range();
    if (range === 'unicast' && addr.kind() === 'ipv6' && addr.match(RESERVED_V6)) return 'reserved';
    return range === 'unicast' ? null : range;
  }
}

/**
 * An allow- or deny-list CIDR as the policy compares it. An IPv6 CIDR that lies inside one of the
 * /96 forms (e.g. `::ffff:10.0.0.0/104`) names an IPv4 network and is kept as one;
 * any other IPv6 CIDR matches native IPv6 addresses only, since embedded ones are
 * compared as IPv4.
 */
function cidrEntry(cidr: string): [Address, number] {
  const [addr, bits] = ipaddr.parseCIDR(cidr);
  return (addr.kind() === 'ipv6' && embeddedIPv4Cidr(addr as ipaddr.IPv6, bits)) || [addr, bits];
}

/** True when a URL host is an IP literal (with or without IPv6 brackets). */
export function ipLiteral(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}
