import { loadHtml } from '../../_lib/html-document.ts';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf } from '../../_lib/http.ts';
import { crawl } from '../crawler.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { pathKey } from '../page-keys.ts';

/** Active content can rewrite the page; passive content only leaks and can be swapped. */
const ACTIVE = [['script', 'src'], ['iframe', 'src'], ['link[rel~="stylesheet" i]', 'href'], ['object', 'data'], ['embed', 'src'], ['form', 'action']] as const;
const PASSIVE = [['img', 'src'], ['audio', 'src'], ['video', 'src'], ['source', 'src']] as const;

export const mixedContent: ScannerCheck = {
  id: 'web_app:mixed-content',
  title: 'Mixed content on HTTPS pages',
  category: 'tls',
  maxSeverity: 'medium',
  description: 'Crawls HTTPS pages and reports http:// scripts, frames, stylesheets, form targets (active) and images/media (passive).',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start?.startsWith('https:')) {
      ctx.log('INFO', 'not an HTTPS site; mixed content does not apply');
      return;
    }
    const reported = new Set<string>();
    for (const page of await crawl(ctx, start)) {
      if (!page.url.startsWith('https:') || !/html/i.test(headerOf(page, 'content-type') ?? '')) continue;
      if (reported.has(pathKey(page.url))) continue;
      const $ = loadHtml(page.body);
      const found: Array<{ element: string; url: string; active: boolean }> = [];
      for (const [list, active] of [[ACTIVE, true], [PASSIVE, false]] as const) {
        for (const [selector, attr] of list) {
          $(selector).each((_i, el) => {
            const v = $(el).attr(attr)?.trim();
            if (v && /^http:\/\//i.test(v)) found.push({ element: `<${(el as { tagName?: string }).tagName ?? selector} ${attr}>`, url: v, active });
          });
        }
      }
      if (!found.length) continue;
      const active = found.some((f) => f.active);
      reported.add(pathKey(page.url));
      ctx.report({
        title: `${active ? 'Active' : 'Passive'} mixed content on ${new URL(page.url).pathname}`,
        cvss_vector: active ? 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
        description: `The HTTPS page ${page.url} loads ${found.length} resource(s) over plain HTTP; a network attacker can read or replace them${active ? ' and so take over the page' : ''}.`,
        remediation: 'Load every sub-resource over HTTPS (or add `Content-Security-Policy: upgrade-insecure-requests`).',
        evidence: { url: page.url, method: 'GET', resources: found.slice(0, 20), response_indicator: found.slice(0, 3).map((f) => `${f.element} ${f.url}`).join('; ') },
        tags: ['web', 'tls'],
        location: pathKey(page.url),
      });
    }
  },
};
