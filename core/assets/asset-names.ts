import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { InputError } from '../errors.ts';

import type { AssetType } from '../domain/asset-type.ts';

export interface NetworkLimits {
  /** The broadest IPv4 network accepted, as a prefix length (16 = at most a /16). */
  minPrefixV4: number;
  minPrefixV6: number;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_URL_LENGTH = 2048;

function invalid(type: AssetType, message: string): never {
  throw new InputError(message, `invalid_${type}`);
}

/** IDNA (punycode), lower case, no trailing dot; LDH labels, at least two, TLD not numeric. */
export function normaliseDomain(raw: string): string {
  const name = raw.trim();
  if (/[\s/:@?#\\]/.test(name)) invalid('domain', `"${raw}" is not a domain name: give the host name only (no scheme, port, path or spaces).`);
  if (ipaddr.isValid(name)) invalid('domain', `"${raw}" is an IP address: register it with type "ip".`);
  const ascii = domainToASCII(name.replace(/\.$/, '')).toLowerCase();
  if (!ascii) invalid('domain', `"${raw}" is not a valid internationalised domain name.`);
  const labels = ascii.split('.');
  if (ascii.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1]!)) {
    invalid('domain', `"${raw}" is not a valid domain name (labels of letters, digits and hyphens, at least two labels, 253 characters at most).`);
  }
  return ascii;
}

/** Strict dotted-quad IPv4 or IPv6 in RFC 5952 form; IPv4-mapped IPv6 becomes IPv4. */
export function normaliseIp(raw: string): string {
  const text = raw.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) {
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toRFC5952String();
  }
  return invalid('ip', `"${raw}" is not an IPv4 address (dotted decimal) or an IPv6 address.`);
}

/** WHATWG-normalised http(s) URL without credentials or fragment; host checked as domain or IP. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return invalid('url', `"${raw}" is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid('url', `"${raw}" must use http or https.`);
  if (url.username || url.password) invalid('url', 'A URL asset must not carry credentials.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(host)) normaliseDomain(host);
  url.hash = '';
  if (url.href.length > MAX_URL_LENGTH) invalid('url', `URLs are limited to ${MAX_URL_LENGTH} characters.`);
  return url.href;
}

/** CIDR in canonical form (network address / prefix) within the configured size. */
export function normaliseNetwork(raw: string, limits: NetworkLimits): string {
  const text = raw.trim();
  const [address, prefixText, ...rest] = text.split('/');
  if (!address || prefixText === undefined || rest.length || !/^\d{1,3}$/.test(prefixText)) {
    invalid('network', `"${raw}" is not a CIDR range such as 192.0.2.0/24 or 2001:db8::/48.`);
  }
  const ip = normaliseIpForNetwork(address, raw);
  const prefix = Number(prefixText);
  const v4 = ip.kind() === 'ipv4';
  const max = v4 ? 32 : 128;
  if (prefix > max) invalid('network', `"${raw}": the prefix length must be at most ${max}.`);
  const min = v4 ? limits.minPrefixV4 : limits.minPrefixV6;
  if (prefix < min) {
    throw new InputError(`"${raw}" is larger than the maximum network size (/${min} for ${v4 ? 'IPv4' : 'IPv6'}).`, 'network_too_large', { max_prefix_length: min });
  }
  const cidr = `${ip.toString()}/${prefix}`;
  const network = v4 ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  return `${v4 ? network.toString() : (network as ipaddr.IPv6).toRFC5952String()}/${prefix}`;
}

function normaliseIpForNetwork(address: string, raw: string): ipaddr.IPv4 | ipaddr.IPv6 {
  try {
    return ipaddr.parse(normaliseIp(address));
  } catch {
    return invalid('network', `"${raw}" does not start with a valid IPv4 or IPv6 address.`);
  }
}

/** Validates and normalises an asset name for its type; throws InputError `invalid_<type>`. */
export function normaliseAssetName(type: AssetType, raw: string, limits: NetworkLimits): string {
  switch (type) {
    case 'domain':
      return normaliseDomain(raw);
    case 'ip':
      return normaliseIp(raw);
    case 'url':
      return normaliseUrl(raw);
    case 'network':
      return normaliseNetwork(raw, limits);
  }
}
