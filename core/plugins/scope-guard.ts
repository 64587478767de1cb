import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { cidrMatcher } from './target-scope.ts';

/** Thrown when a check would leave the scan's scope (host out of scope, or a deny-listed address). */
export class OutOfScopeError extends Error {
  readonly code = 'out_of_scope';
}

export interface ScopeGuardOptions {
  inScope: (hostOrIp: string) => boolean;
  /** CIDRs no connection may reach, whatever the scope says. */
  deny: readonly string[];
  /** Test seam: replaces DNS resolution (`dns.lookup`'s shape). */
  resolve?: typeof dnsLookup;
}

/**
 * The one place a check's names become addresses. Both `ctx.http` (through `lookup`, its
 * connector's resolver) and `ctx.resolve` (for raw sockets) ask it, so a name is judged
 * by the same rule whichever way a check connects: in scope, and none of its addresses
 * deny-listed at the moment it is resolved for that connection.
 */
export interface ScopeGuard {
  inScope(hostOrIp: string): boolean;
  denied(ip: string): boolean;
  /** A `net.connect`-shaped lookup that refuses a name with any deny-listed address. */
  readonly lookup: LookupFunction;
  /** `ctx.resolve`: the addresses a raw connection to `host` may use. */
  resolve(host: string, opts?: { outsideScope?: boolean; signal?: AbortSignal }): Promise<string[]>;
}

const bare = (host: string): string => host.toLowerCase().replace(/^\[|\]$/g, '');

export function scopeGuard(o: ScopeGuardOptions): ScopeGuard {
  const denied = cidrMatcher(o.deny);
  const resolveAll = o.resolve ?? dnsLookup;
  /** Every address of `hostname`, refused as a whole when one is deny-listed. */
  const addressesOf = (hostname: string, family: number, callback: (err: Error | null, addresses: LookupAddress[]) => void): void => {
    resolveAll(hostname, { family: family as 0, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => denied(a.address));
      if (bad) return callback(new OutOfScopeError(`${hostname} resolves to ${bad.address}, which is on the scan deny list`), []);
      if (!addresses.length) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, addresses);
    });
  };
  const lookup = ((hostname: string, options: { all?: boolean; family?: number }, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    addressesOf(hostname, options.family ?? 0, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as unknown as LookupFunction;
  return {
    inScope: o.inScope,
    denied,
    lookup,
    resolve(host, opts = {}) {
      const name = bare(host);
      if (!opts.outsideScope && !o.inScope(name)) return Promise.reject(new OutOfScopeError(`${name} is outside the scan scope`));
      if (isIP(name)) return denied(name) ? Promise.reject(new OutOfScopeError(`${name} is on the scan deny list`)) : Promise.resolve([name]);
      return new Promise<string[]>((resolve, reject) => {
        const onAbort = () => reject(opts.signal?.reason ?? new Error('aborted'));
        if (opts.signal?.aborted) return onAbort();
        // getaddrinfo cannot be cancelled: an aborted check stops waiting for it instead.
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        addressesOf(name, 0, (err, addresses) => {
          opts.signal?.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve([...new Set(addresses.map((a) => a.address))]);
        });
      });
    },
  };
}
