import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ScanTarget } from '../../core/plugin-api/index.ts';

/**
 * The addresses to scan for a target, already filtered through `inScope` (the asset's
 * scope and the deny list): the IP itself, a domain's/URL host's resolved addresses,
 * or the hosts of a CIDR (at most `maxHosts`, network and broadcast addresses skipped
 * for IPv4 prefixes up to /30).
 */
export async function scanAddresses(target: ScanTarget, inScope: (h: string) => boolean, maxHosts: number): Promise<{ addresses: string[]; truncated: boolean }> {
  if (target.assetType === 'network') {
    const [net, bits] = ipaddr.parseCIDR(target.name);
    const v4 = net.kind() === 'ipv4';
    const size = v4 ? 2 ** (32 - bits) : 2 ** Math.min(40, 128 - bits);
    const skipEdges = v4 && bits <= 30;
    const addresses: string[] = [];
    const bytes = net.toByteArray();
    for (let i = skipEdges ? 1 : 0; i < (skipEdges ? size - 1 : size) && addresses.length < maxHosts; i++) {
      const b = [...bytes];
      let carry = i;
      for (let k = b.length - 1; k >= 0 && carry > 0; k--) {
        const sum = b[k]! + (carry % 256);
        b[k] = sum % 256;
        carry = Math.floor(carry / 256) + Math.floor(sum / 256);
      }
      const ip = ipaddr.fromByteArray(b).toString();
      if (inScope(ip)) addresses.push(ip);
    }
    return { addresses, truncated: size - (skipEdges ? 2 : 0) > maxHosts };
  }
  const host = target.host ?? target.name;
  if (isIP(host)) return { addresses: inScope(host) ? [host] : [], truncated: false };
  const resolved = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  return { addresses: [...new Set(resolved)].filter((ip) => inScope(ip)), truncated: false };
}
