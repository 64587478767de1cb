import { ipLiteral, type AddressPolicy } from '../outbound/address-policy.ts';
import { parseDestination } from '../outbound/destination-check.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import { fillPlaceholders } from './template-placeholders.ts';

/** The outbound rules a URL in an action is held to at registration. */
export interface UrlRules {
  policy: AddressPolicy;
  requireHttps: boolean;
}

export interface UrlProblem {
  code: 'invalid_url' | 'https_required' | 'url_not_allowed';
  message: string;
}

/**
 * Registration-time check of an action's outbound URL, without network I/O (an action
 * is registered once and DNS changes anyway; the client checks every connection):
 * the form (http(s), no credentials, a host); an IP-literal host must be allowed by the
 * outbound policy (`outbound.allowPrivateCidrs` admits private ranges); `https` is
 * required when `outbound.requireHttps` is on, as the client requires it. Templated URLs
 * may hold placeholders in the path and query, never in the scheme, host or port.
 */
export function urlProblem(raw: string, rules: UrlRules, templated: boolean): UrlProblem | null {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (raw.slice(0, raw.indexOf('://') + 3 + authority.length).includes('{{')) {
    return { code: 'invalid_url', message: 'placeholders may appear in the path and query only, not in the scheme or host' };
  }
  let url: URL;
  try {
    url = parseDestination(templated ? fillPlaceholders(raw, 'x') : raw, { requireHttps: false });
  } catch (err) {
    if (err instanceof OutboundError) return { code: 'invalid_url', message: err.message };
    throw err;
  }
  const literal = ipLiteral(url.hostname);
  const refused = literal ? rules.policy.refusal(literal) : null;
  if (literal && refused) return { code: 'url_not_allowed', message: `${url.hostname} is a ${refused} address, which is not allowed` };
  // The outbound client refuses plain http under the same setting, so an action that
  // would only ever fail is refused at registration.
  if (url.protocol !== 'https:' && rules.requireHttps) return { code: 'https_required', message: 'the URL must use https' };
  return null;
}
