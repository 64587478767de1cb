import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';

/** The starts of a body that browsers' MIME sniffing (WHATWG) takes for HTML. */
const SNIFFS_AS_HTML = /^\s*<(?:!doctype html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--)[\s>]/i;

export const securityHeaders: ScannerCheck = {
  id: 'web_app:security-headers',
  title: 'Missing security headers',
  category: 'headers',
  maxSeverity: 'medium',
  description: 'Reads CSP, X-Frame-Options / frame-ancestors, X-Content-Type-Options and Referrer-Policy of the start page (HSTS belongs to ssl:hsts); a page without Content-Type that sniffs as HTML is judged too, with the missing Content-Type listed.',
  async run(ctx, target) {
    const url = startUrl(target);
    if (!url) return;
    const res = await httpRequest(ctx, url);
    const contentType = headerOf(res, 'content-type');
    // Without a Content-Type, browsers sniff the body: an HTML-looking page renders as HTML.
    const sniffedHtml = !contentType && SNIFFS_AS_HTML.test(res.body.slice(0, 512));
    if (!/html/i.test(contentType ?? '') && !sniffedHtml) {
      ctx.log('INFO', `${url} is not an HTML page (${contentType ?? 'no content-type'}); page headers not judged`);
      return;
    }
    const csp = headerOf(res, 'content-security-policy');
    const xfo = headerOf(res, 'x-frame-options');
    const xcto = headerOf(res, 'x-content-type-options');
    const referrer = headerOf(res, 'referrer-policy');
    const missing: string[] = [];
    if (sniffedHtml) missing.push('Content-Type');
    if (!csp) missing.push('Content-Security-Policy');
    if (!/^(deny|sameorigin)$/i.test(xfo?.trim() ?? '') && !/frame-ancestors/i.test(csp ?? '')) missing.push('X-Frame-Options (or CSP frame-ancestors)');
    if (!/^nosniff$/i.test(xcto?.trim() ?? '')) missing.push('X-Content-Type-Options: nosniff');
    if (!referrer) missing.push('Referrer-Policy');
    if (!missing.length) return;
    // Clickjacking or no script policy is worth more than the hardening-only headers.
    const framing = missing.some((m) => m.startsWith('Content-Security') || m.startsWith('X-Frame'));
    const seen = { 'content-security-policy': csp ?? null, 'x-frame-options': xfo ?? null, 'x-content-type-options': xcto ?? null, 'referrer-policy': referrer ?? null };
    ctx.report({
      title: `Missing security headers: ${missing.map((m) => m.split(/[ :]/)[0]).join(', ')}`,
      cvss_vector: framing ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `${url} answered without: ${missing.join('; ')}. Without them browsers allow framing (clickjacking), MIME sniffing and unrestricted script sources.`,
      remediation: "Send Content-Security-Policy (with frame-ancestors 'self'), X-Content-Type-Options: nosniff and Referrer-Policy: strict-origin-when-cross-origin on HTML responses.",
      evidence: { url, method: 'GET', status: res.status, headers_seen: seen, missing, response_indicator: `absent: ${missing.join(', ')}` },
      references: ['https://owasp.org/www-project-secure-headers/'],
      tags: ['web', 'headers'],
      location: url,
    });
  },
};
