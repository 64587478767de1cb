import ipaddr from 'ipaddr.js';
import type { CheckContext, ScanTarget } from '../../core/plugin-api/index.ts';

/**
 * The addresses to scan for a target: the hosts of a CIDR that `ctx.inScope` accepts (at
 * most `maxHosts`, network and broadcast addresses skipped for IPv4 prefixes up to /30),
 * or what `ctx.resolve` answers for the IP or name: in scope, and a name refused when
 * any of its addresses is deny-listed. The scan connects to these addresses only.
 */
export async function scanAddresses(ctx: CheckContext, target: ScanTarget, maxHosts: number): Promise<{ addresses: string[]; truncated: boolean }> {
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
      if (ctx.inScope(ip)) addresses.push(ip);
    }
    return { addresses, truncated: size - (skipEdges ? 2 : 0) > maxHosts };
  }
  const host = target.host ?? target.name;
  try {
    return { addresses: await ctx.resolve(host), truncated: false };
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'out_of_scope') throw err;
    ctx.log('WARN', (err as Error).message);
    return { addresses: [], truncated: false };
  }
}
