import { loadHtml } from '../../_lib/html-document.ts';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { RequestBudget } from '../request-budget.ts';
import { crawl } from '../crawler.ts';
import { startUrl } from '../../_lib/endpoint.ts';

/** Parameter names redirect handlers commonly read. */
export const REDIRECT_PARAMS = ['redirect', 'redirect_uri', 'redirect_url', 'url', 'next', 'return', 'returnTo', 'return_url', 'continue', 'dest', 'destination', 'goto', 'target', 'r', 'u'];
/** Paths of pages that handle redirects (login and logout flows, link trackers, SSO callbacks). */
const REDIRECT_PATH = /(^|[/._-])(log_?in|log_?out|sign_?in|sign_?out|redirect|goto|go|out|exit|link|jump|return|callback|continue|sso|auth|oauth|next)([._/-]|$)/i;

/**
 * Which parameters to try on a crawled page: all 15 on the start page and on pages whose
 * path says they handle redirects; elsewhere only the parameters the page already takes
 * that are redirect names or carry a URL or path. Trying 15 parameters on every article
 * of a large site costs thousands of requests for pages that never redirect.
 */
function parametersFor(url: URL, start: string): string[] {
  if (url.origin + url.pathname === new URL(start).origin + new URL(start).pathname || REDIRECT_PATH.test(url.pathname)) return REDIRECT_PARAMS;
  return [...url.searchParams.entries()].filter(([k, v]) => REDIRECT_PARAMS.includes(k) || /^(https?:\/\/|\/)/i.test(v)).map(([k]) => k);
}

/** A host nobody owns (.invalid): a redirect there can only be the parameter's doing. */
const PROBE_HOST = 'rampart-redirect-probe.invalid';
const PROBE = `https://${PROBE_HOST}/`;

function redirectsToProbe(location: string | undefined, base: string): boolean {
  if (!location) return false;
  try {
    return new URL(location, base).hostname === PROBE_HOST;
  } catch {
    return false;
  }
}

export const openRedirect: ScannerCheck = {
  id: 'web_app:open-redirect',
  title: 'Open redirect',
  category: 'redirect',
  maxSeverity: 'medium',
  description: 'Sets redirect parameters to https://rampart-redirect-probe.invalid/ and reports a 3xx Location or meta refresh pointing there: the 15 common names on the start page and on crawled pages whose path handles redirects (login, logout, go, out, callback…); elsewhere the redirect-named or URL-valued parameters the page already takes.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const byPage = new Map<string, URL>();
    for (const p of await crawl(ctx, start)) {
      const u = new URL(p.requested);
      const key = u.origin + u.pathname;
      const known = byPage.get(key);
      if (!known) byPage.set(key, u);
      else for (const [k, v] of u.searchParams) if (!known.searchParams.has(k)) known.searchParams.set(k, v);
    }
    const budget = RequestBudget.of(ctx);
    for (const [page, seen] of byPage) {
      const hits: Array<{ parameter: string; indicator: string }> = [];
      for (const param of parametersFor(seen, start)) {
        if (!budget.take()) continue;
        const u = new URL(page);
        for (const [k, v] of seen.searchParams) if (k !== param) u.searchParams.set(k, v);
        u.searchParams.set(param, PROBE);
        const res = await httpRequest(ctx, u.href, { maxBodyBytes: 16 * 1024 });
        const location = headerOf(res, 'location');
        if (res.status >= 300 && res.status < 400 && redirectsToProbe(location, u.href)) {
          hits.push({ parameter: param, indicator: `${res.status} location: ${location}` });
        } else if (res.status === 200 && /html/i.test(headerOf(res, 'content-type') ?? '')) {
          const refresh = loadHtml(res.body)('meta[http-equiv="refresh" i]').attr('content') ?? '';
          const target = /url\s*=\s*['"]?([^'"\s]+)/i.exec(refresh)?.[1];
          if (redirectsToProbe(target, u.href)) hits.push({ parameter: param, indicator: `meta refresh: ${refresh}` });
        }
      }
      if (!hits.length) continue;
      ctx.report({
        title: `Open redirect via ${hits.map((h) => h.parameter).join(', ')} on ${new URL(page).pathname}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
        description: `${page} sends visitors to any URL given in ${hits.map((h) => `\`${h.parameter}\``).join(', ')}. Phishing links can borrow the site's name, and OAuth flows using it can leak tokens.`,
        remediation: 'Redirect only to relative paths or an allow-list of hosts; reject absolute URLs in redirect parameters.',
        evidence: { url: page, method: 'GET', parameter: hits[0]!.parameter, payload: PROBE, hits, response_indicator: hits[0]!.indicator },
        references: ['https://cwe.mitre.org/data/definitions/601.html'],
        tags: ['web', 'redirect'],
        location: page,
      });
    }
    budget.report(ctx, `${budget.refused} redirect probe(s) not sent`);
  },
};
