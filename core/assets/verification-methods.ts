import ipaddr from 'ipaddr.js';
import type { AssetType } from '../domain/asset-type.ts';

export const VERIFICATION_METHODS = ['dns_txt', 'meta_tag', 'file'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export const META_NAME = 'rampart-verification';
export const TXT_PREFIX = 'rampart-verification=';
export const WELL_KNOWN_PATH = '/.well-known/rampart-verification.txt';

/** Where one method looks and what it expects there. */
export interface MethodPlan {
  method: VerificationMethod;
  /** DNS name for dns_txt; URLs tried in order (first that answers) for HTTP methods. */
  target: string;
  urls: string[];
  expected: string;
  instructions: string;
}

function hostOf(type: AssetType, name: string): string {
  return type === 'url' ? new URL(name).hostname.replace(/^\[|\]$/g, '') : name;
}

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The methods an asset can be verified by. A domain: TXT at the domain, or the meta
 * tag / file over https (then http). A URL: the meta tag on that page, the file at its
 * origin, or TXT at its host name when that is a domain. An IP: the meta tag / file
 * over http(s). A network range has no single host to check, so no method applies.
 */
export function methodPlans(type: AssetType, name: string, token: string): MethodPlan[] {
  if (type === 'network') return [];
  const host = hostOf(type, name);
  const isIp = ipaddr.isValid(host);
  const origins = type === 'url' ? [new URL(name).origin] : isIp ? [`http://${bracket(host)}`, `https://${bracket(host)}`] : [`https://${host}`, `http://${host}`];
  const pages = type === 'url' ? [name] : origins.map((o) => `${o}/`);
  const plans: MethodPlan[] = [];
  if (!isIp) {
    plans.push({
      method: 'dns_txt',
      target: host,
      urls: [],
      expected: `${TXT_PREFIX}${token}`,
      instructions: `Add a DNS TXT record to ${host} with the value "${TXT_PREFIX}${token}", then call POST /api/assets/{id}/verify/check with {"method":"dns_txt"}. DNS changes can take a while to propagate.`,
    });
  }
  plans.push({
    method: 'meta_tag',
    target: pages[0]!,
    urls: pages,
    expected: token,
    instructions: `Add <meta name="${META_NAME}" content="${token}"> to the <head> of ${pages[0]}, then call POST /api/assets/{id}/verify/check with {"method":"meta_tag"}.`,
  });
  const files = origins.map((o) => `${o}${WELL_KNOWN_PATH}`);
  plans.push({
    method: 'file',
    target: files[0]!,
    urls: files,
    expected: token,
    instructions: `Publish a text file at ${files[0]} whose content is exactly "${token}", then call POST /api/assets/{id}/verify/check with {"method":"file"}.`,
  });
  if (type === 'url') plans.sort((a, b) => (a.method === 'meta_tag' ? -1 : b.method === 'meta_tag' ? 1 : 0));
  if (type === 'ip') plans.sort((a, b) => (a.method === 'file' ? -1 : b.method === 'file' ? 1 : 0));
  return plans;
}
