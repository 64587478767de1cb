import type { AddressPolicy } from './address-policy.ts';
import { ipLiteral } from './address-policy.ts';
import { resolveAll, type LookupFn } from './guarded-lookup.ts';
import { DestinationRefusedError, OutboundError } from './outbound-error.ts';

export interface DestinationRules {
  policy: AddressPolicy;
  /** When true (the default in config) only `https:` URLs are accepted. */
  requireHttps: boolean;
  resolve?: LookupFn;
}

/** Parses a URL and checks its form: http(s) only (https when required), no credentials. */
export function parseDestination(raw: string, rules: Pick<DestinationRules, 'requireHttps'>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundError('invalid_url', 'Only http(s) URLs are supported.');
  if (rules.requireHttps && url.protocol !== 'https:') throw new OutboundError('https_required', 'The URL must use https.');
  // Credentials in a URL would be echoed back by the API and land in logs: use headers instead.
  if (url.username || url.password) throw new OutboundError('invalid_url', 'The URL must not contain credentials; use custom headers.');
  if (!url.hostname) throw new OutboundError('invalid_url', 'The URL has no host.');
  return url;
}

/**
 * The registration-time check of a destination URL: form, then every address the host
 * resolves to now. It gives the user an early, clear error; the binding check is the
 * one made again on every connection (guarded-lookup.ts), since DNS can change.
 */
export async function checkDestination(raw: string, rules: DestinationRules): Promise<URL> {
  const url = parseDestination(raw, rules);
  const literal = ipLiteral(url.hostname);
  if (literal) {
    const refused = rules.policy.refusal(literal);
    if (refused) throw new DestinationRefusedError(url.hostname, literal, refused);
    return url;
  }
  let addresses;
  try {
    addresses = await resolveAll(url.hostname, rules.resolve);
  } catch {
    throw new OutboundError('dns_failed', `The host ${url.hostname} could not be resolved.`);
  }
  if (!addresses.length) throw new OutboundError('dns_failed', `The host ${url.hostname} has no addresses.`);
  for (const a of addresses) {
    const refused = rules.policy.refusal(a.address);
    if (refused) throw new DestinationRefusedError(url.hostname, a.address, refused);
  }
  return url;
}
