import { isIP } from 'node:net';

/**
 * The host of a raw connection (TCP, TLS, UDP), refused unless it is an IP address.
 * Connecting by name would have the system resolve it again at connect time, after the
 * scope judged it: the name could then answer a deny-listed address (DNS rebinding). A
 * check resolves names with `ctx.resolve` and connects to what it returned.
 */
export function addressOnly(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) throw new Error(`raw connections go to addresses: resolve ${JSON.stringify(host)} with ctx.resolve first`);
  return bare;
}
