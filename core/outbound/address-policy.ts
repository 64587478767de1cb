import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Which IP addresses outbound requests may reach. Deny by default: only globally
 * routable unicast addresses pass. Private (RFC 1918), loopback, link-local
 * (169.254.0.0/16, fe80::/10), unique-local (fc00::/7), CGNAT (100.64.0.0/10),
 * multicast, unspecified, broadcast, documentation/reserved ranges and the IPv6
 * transition ranges that can embed an IPv4 address (6to4, Teredo, NAT64) are refused
 * unless an admin allow-lists a CIDR (`outbound.allowPrivateCidrs`). IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry.
 */
export class AddressPolicy {
  readonly #allow: Array<[Address, number]>;

  constructor(allowCidrs: readonly string[] = []) {
    this.#allow = allowCidrs.map((cidr) => {
      const [addr, bits] = ipaddr.parseCIDR(cidr);
      return [normalise(addr), addr.kind() === 'ipv6' && normalise(addr).kind() === 'ipv4' ? bits - 96 : bits];
    });
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
    return normalise(ipaddr.parse(ip)).range();
  }

  /** Null when the address may be reached, otherwise the name of the range that forbids it. */
  refusal(ip: string): string | null {
    let addr: Address;
    try {
      addr = normalise(ipaddr.parse(ip));
    } catch {
      return 'invalid address';
    }
    for (const [net, bits] of this.#allow) {
      if (net.kind() === addr.kind() && addr.match(net as never, bits)) return null;
    }
    const range = addr.range();
    return range === 'unicast' ? null : range;
  }
}

function normalise(addr: Address): Address {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

/** True when a URL host is an IP literal (with or without IPv6 brackets). */
export function ipLiteral(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}
