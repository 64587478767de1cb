import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];
const COMPATIBLE = cidr('::/96'); // IPv4-compatible (deprecated, RFC 4291), but for :: and ::1
const MAPPED = cidr('::ffff:0:0/96');
const TRANSLATED = cidr('::ffff:0:0:0/96'); // RFC 6145
const NAT64 = cidr('64:ff9b::/96'); // RFC 6052 well-known prefix
const SIX_TO_FOUR = cidr('2002::/16'); // RFC 3056: the IPv4 address is bits 16-47
const TEREDO = cidr('2001::/32'); // RFC 4380: the client address is the last 32 bits, inverted

function v4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries, for every form a packet can be routed to
 * that IPv4 host through (or that a dual-stack socket treats as it): IPv4-compatible,
 * IPv4-mapped, IPv4-translated, NAT64 (64:ff9b::/96), 6to4 and Teredo. Null for a
 * native IPv6 address. `::` and `::1` are not read as IPv4-compatible: they keep their
 * own meaning (unspecified, loopback). The local-use NAT64 prefix 64:ff9b:1::/48 has
 * no fixed position for the address, so it is not decoded here (and stays refused as
 * its own special range).
 */
export function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = addr.parts;
  if (addr.match(MAPPED) || addr.match(TRANSLATED) || addr.match(NAT64)) return v4(p[6]!, p[7]!);
  if (addr.match(COMPATIBLE)) return p[6] === 0 && p[7]! <= 1 ? null : v4(p[6]!, p[7]!);
  if (addr.match(SIX_TO_FOUR)) return v4(p[1]!, p[2]!);
  if (addr.match(TEREDO)) return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
  return null;
}

/**
 * The IPv4 network an IPv6 CIDR names when it lies inside one of the /96 forms
 * (e.g. `::ffff:10.0.0.0/104` is 10.0.0.0/8); null for any other CIDR. 6to4 and Teredo
 * CIDRs are not translated: their IPv4 bits are not at the end of the address.
 */
export function embeddedIPv4Cidr(addr: ipaddr.IPv6, bits: number): [ipaddr.IPv4, number] | null {
  if (bits < 96 || addr.match(SIX_TO_FOUR) || addr.match(TEREDO)) return null;
  const v4 = embeddedIPv4(addr);
  return v4 ? [v4, bits - 96] : null;
}

/** Parses an address and, when it is an IPv6 form carrying an IPv4 address, returns that IPv4 address. Throws on a non-IP. */
export function normaliseAddress(ip: string): Address {
  const addr = ipaddr.parse(ip);
  return addr.kind() === 'ipv6' ? (embeddedIPv4(addr as ipaddr.IPv6) ?? addr) : addr;
}

/** The embedded IPv4 address of an IPv6 literal, as text (null for IPv4 or native IPv6 or a non-IP). */
export function embeddedIPv4Of(ip: string): string | null {
  try {
    const addr = ipaddr.parse(ip);
    return addr.kind() === 'ipv6' ? (embeddedIPv4(addr as ipaddr.IPv6)?.toString() ?? null) : null;
  } catch {
    return null;
  }
}
