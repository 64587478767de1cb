import type { CheckContext } from '../../core/plugin-api/index.ts';

/** A deliberately small default list: enumeration is a hint, not a brute force. */
export const DEFAULT_SUBDOMAINS = [
  'www', 'mail', 'smtp', 'webmail', 'api', 'app', 'dev', 'test', 'staging', 'beta', 'admin', 'portal', 'vpn', 'remote',
  'ftp', 'git', 'gitlab', 'jenkins', 'ci', 'intranet', 'internal', 'blog', 'shop', 'm', 'cdn', 'static', 'ns1', 'ns2', 'mx', 'autodiscover',
];

/** The `subdomain_wordlist` option, else the default list (at most 500 names). */
export function subdomainWordlist(ctx: CheckContext): string[] {
  const custom = ctx.options.subdomain_wordlist;
  const list = Array.isArray(custom) && custom.length ? custom.map(String) : DEFAULT_SUBDOMAINS;
  return list.filter((w) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(w)).slice(0, 500);
}
