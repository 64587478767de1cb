// Plain JavaScript so that the connect engine's shard threads, which load no TypeScript,
// guard their connects with the same function. Types: address-only.d.mts.
import { isIP } from 'node:net';

/**
 * The host of a raw connection (TCP, TLS, UDP), refused unless it is an IP address.
 * Connecting by name would have the system resolve it again at connect time, after the
 * scope judged it: the name could then answer a deny-listed address (DNS rebinding). A
 * check resolves names with `ctx.resolve` and connects to what it returned.
 * @param {string} host
 * @returns {string} the address, without IPv6 brackets
 */
export function addressOnly(host) {
  const bare = host.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) throw new Error(`raw connections go to addresses: resolve ${JSON.stringify(host)} with ctx.resolve first`);
  return bare;
}
