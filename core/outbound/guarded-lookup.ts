import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { AddressPolicy } from './address-policy.ts';
import { DestinationRefusedError } from './outbound-error.ts';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupFn = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => void;

/**
 * A `lookup` for net/tls connect (undici's `connect.lookup`): resolves the host and
 * refuses the connection when ANY resolved address is outside the policy. Checking
 * here, at connect time and on the addresses actually dialled, is what defeats DNS
 * rebinding (a name that resolved to a public address when the URL was registered and
 * to 127.0.0.1 now). Refusing on any bad address rather than filtering them out keeps
 * a mixed answer from being used to reach an internal host.
 */
export function guardedLookup(policy: AddressPolicy, resolve: LookupFn = dnsLookup as unknown as LookupFn): LookupFn {
  return (hostname, options, callback) => {
    const opts: LookupAllOptions = { family: options.family as LookupAllOptions['family'], all: true };
    resolve(hostname, opts, (err, result) => {
      if (err) return callback(err, options.all ? [] : '');
      const addresses = result as LookupAddress[];
      for (const a of addresses) {
        const refused = policy.refusal(a.address);
        if (refused) return callback(new DestinationRefusedError(hostname, a.address, refused) as NodeJS.ErrnoException, options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

/** Resolves every address of a host through the same lookup (used when a URL is registered). */
export function resolveAll(hostname: string, resolve: LookupFn = dnsLookup as unknown as LookupFn): Promise<LookupAddress[]> {
  return new Promise((ok, fail) => {
    resolve(hostname, { all: true }, (err, result) => (err ? fail(err) : ok(result as LookupAddress[])));
  });
}

export type { LookupFn };
