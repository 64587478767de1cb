import * as cheerio from 'cheerio';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { crawl } from '../crawler.ts';
import { startUrl } from '../../_lib/endpoint.ts';

/** Parameter names redirect handlers commonly read. */
export const REDIRECT_PARAMS = ['redirect', 'redirect_uri', 'redirect_url', 'url', 'next', 'return', 'returnTo', 'return_url', 'continue', 'dest', 'destination', 'goto', 'target', 'r', 'u'];
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
  description: 'For the start page and crawled pages (page budget), sets each common redirect parameter to https://rampart-redirect-probe.invalid/ and reports a 3xx Location or meta refresh pointing there.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const pages = [...new Set((await crawl(ctx, start)).map((p) => new URL(p.requested).origin + new URL(p.requested).pathname))];
    for (const page of pages) {
      const hits: Array<{ parameter: string; indicator: string }> = [];
      for (const param of REDIRECT_PARAMS) {
        const u = new URL(page);
        u.searchParams.set(param, PROBE);
        const res = await httpRequest(ctx, u.href, { maxBodyBytes: 16 * 1024 });
        const location = headerOf(res, 'location');
        if (res.status >= 300 && res.status < 400 && redirectsToProbe(location, u.href)) {
          hits.push({ parameter: param, indicator: `${res.status} location: ${location}` });
        } else if (res.status === 200 && /html/i.test(headerOf(res, 'content-type') ?? '')) {
          const refresh = cheerio.load(res.body)('meta[http-equiv="refresh" i]').attr('content') ?? '';
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
  },
};
