import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, type HttpResponse } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { crawl } from '../crawler.ts';
import { isHtml, listed, pathOf } from '../page-keys.ts';

/** The starts of a body that browsers' MIME sniffing (WHATWG) takes for HTML. */
const SNIFFS_AS_HTML = /^\s*<(?:!doctype html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--)[\s>]/i;

const MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N';
const LOW = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N';

interface HeaderRule {
  /** Stable key: part of the finding's location. */
  key: string;
  header: string;
  missing(res: HttpResponse, sniffed: boolean): boolean;
  vector: string;
  why: string;
  fix: string;
}

/** One rule per problem; framing protection counts CSP frame-ancestors as well as X-Frame-Options. */
export const HEADER_RULES: HeaderRule[] = [
  { key: 'content-type', header: 'Content-Type', missing: (_r, sniffed) => sniffed, vector: LOW, why: 'the browser guesses the type from the body (MIME sniffing)', fix: 'Send `Content-Type: text/html; charset=utf-8`.' },
  { key: 'content-security-policy', header: 'Content-Security-Policy', missing: (r) => !headerOf(r, 'content-security-policy'), vector: MEDIUM, why: 'any injected script runs with no policy restricting its sources', fix: "Send a Content-Security-Policy (at least `default-src 'self'`)." },
  {
    key: 'frame-options', header: 'X-Frame-Options (or CSP frame-ancestors)',
    missing: (r) => !/^(deny|sameorigin)$/i.test(headerOf(r, 'x-frame-options')?.trim() ?? '') && !/frame-ancestors/i.test(headerOf(r, 'content-security-policy') ?? ''),
    vector: MEDIUM, why: 'other sites can frame the page (clickjacking)', fix: "Send `X-Frame-Options: DENY` or CSP `frame-ancestors 'self'`.",
  },
  { key: 'x-content-type-options', header: 'X-Content-Type-Options: nosniff', missing: (r) => !/^nosniff$/i.test(headerOf(r, 'x-content-type-options')?.trim() ?? ''), vector: LOW, why: 'browsers may MIME-sniff responses into a script or style type', fix: 'Send `X-Content-Type-Options: nosniff`.' },
  { key: 'referrer-policy', header: 'Referrer-Policy', missing: (r) => !headerOf(r, 'referrer-policy'), vector: LOW, why: 'full URLs (with tokens in query strings) leak to other sites in the Referer header', fix: 'Send `Referrer-Policy: strict-origin-when-cross-origin`.' },
];

export const securityHeaders: ScannerCheck = {
  id: 'web_app:security-headers',
  title: 'Missing security headers',
  category: 'headers',
  maxSeverity: 'medium',
  description: 'Judges every crawled HTML page (and pages without Content-Type whose body sniffs as HTML) for CSP, framing protection (X-Frame-Options / frame-ancestors), X-Content-Type-Options and Referrer-Policy; one finding per missing header, listing the pages. HSTS belongs to ssl:hsts.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const origin = new URL(start).origin;
    const judged: Array<{ res: HttpResponse; sniffed: boolean }> = [];
    for (const page of await crawl(ctx, start)) {
      // Without a Content-Type, browsers sniff the body: an HTML-looking page renders as HTML.
      const sniffed = !headerOf(page, 'content-type') && SNIFFS_AS_HTML.test(page.body.slice(0, 512));
      if (isHtml(page) || sniffed) judged.push({ res: page, sniffed });
    }
    if (!judged.length) {
      ctx.log('INFO', `no HTML page found from ${start}; page headers not judged`);
      return;
    }
    for (const rule of HEADER_RULES) {
      const pages = [...new Set(judged.filter((j) => rule.missing(j.res, j.sniffed)).map((j) => j.res.url))];
      if (!pages.length) continue;
      const shown = listed(pages.map(pathOf));
      ctx.report({
        title: `Missing security header: ${rule.header}`,
        cvss_vector: rule.vector,
        description: `${pages.length} of ${judged.length} HTML page(s) of ${origin} are served without ${rule.header}: ${rule.why}.`,
        remediation: `${rule.fix} Set it for every HTML response (server or framework configuration), not page by page.`,
        evidence: { url: pages[0], method: 'GET', header: rule.header, pages: shown.items, pages_not_listed: shown.more, pages_judged: judged.length, response_indicator: `${rule.header} absent on ${pages.length} of ${judged.length} HTML page(s)` },
        references: ['https://owasp.org/www-project-secure-headers/'],
        tags: ['web', 'headers'],
        location: `${origin}/ header:${rule.key}`,
      });
    }
  },
};
