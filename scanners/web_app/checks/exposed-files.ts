import type { CheckContext, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { httpRequest, type HttpResponse } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { identify, type SensitiveContent } from '../content-signatures.ts';
import { crawl } from '../crawler.ts';
import { directoriesOf, pathKey, pathOf } from '../page-keys.ts';
import { RequestBudget } from '../request-budget.ts';
import { probeUrls } from '../sensitive-files.ts';

function report(ctx: CheckContext, res: HttpResponse, found: SensitiveContent, foundBy: 'crawl' | 'probe'): void {
  const where = pathKey(res.url);
  ctx.report({
    title: `Exposed ${found.what}: ${pathOf(where)}`,
    cvss_vector: found.high ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
    description: `${where} is publicly readable (${found.what}); ${foundBy === 'crawl' ? 'the crawl reached it through a link or a directory listing' : 'it was found by asking for a well-known sensitive name'}.`,
    remediation: 'Remove the file from the web root or deny access to it, and rotate any secret it contained (passwords, keys, tokens).',
    evidence: { url: where, method: 'GET', status: res.status, file: pathOf(where), kind: found.kind, found_by: foundBy, response_indicator: found.indicator },
    tags: ['web', 'exposure', found.kind],
    location: where,
  });
}

export const exposedFiles: ScannerCheck = {
  id: 'web_app:exposed-files',
  title: 'Exposed sensitive files',
  category: 'exposure',
  maxSeverity: 'high',
  description: 'Examines every body the crawl fetched (database dumps, KEY=value secrets, private keys, Git metadata, password files, PHP source, backup archives); with enable_bruteforce also asks for the documented sensitive names in every directory the crawl found, within the request budget. A hit always needs a content proof.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const origin = new URL(start).origin;
    const pages = await crawl(ctx, start);
    const reported = new Set<string>();
    for (const page of pages) {
      const found = identify(page);
      if (!found || reported.has(pathKey(page.url))) continue;
      reported.add(pathKey(page.url));
      report(ctx, page, found, 'crawl');
    }
    if (ctx.options.enable_bruteforce !== true) {
      ctx.log('INFO', 'enable_bruteforce is off: crawled files examined, sensitive names not probed');
      return;
    }
    const fetched = new Set(pages.map((p) => pathKey(p.url)));
    const urls = probeUrls(origin, directoriesOf(pages.map((p) => p.url)), pages.map((p) => p.url)).filter((u) => !fetched.has(u));
    const budget = RequestBudget.of(ctx);
    const failed: string[] = [];
    for (const url of urls) {
      if (ctx.signal.aborted) break;
      if (!budget.take()) continue;
      let res: HttpResponse;
      try {
        res = await httpRequest(ctx, url, { maxBodyBytes: 16 * 1024 });
      } catch (err) {
        failed.push(`${pathOf(url)}: ${(err as Error).message}`);
        continue;
      }
      const found = identify(res, { probedAs: pathOf(url) });
      if (!found || reported.has(pathKey(url))) continue;
      reported.add(pathKey(url));
      report(ctx, { ...res, url }, found, 'probe');
    }
    budget.report(ctx, `${budget.refused} sensitive-name probe(s) not sent`);
    if (failed.length && failed.length === budget.used) throw new Error(`every sensitive-name probe failed (${failed.length}), first: ${failed[0]}`);
    if (failed.length) ctx.log('WARN', `${failed.length} sensitive-name probe(s) got no answer: ${failed.slice(0, 5).join('; ')}`);
    ctx.log('INFO', `${budget.used} sensitive-name probe(s) sent over ${directoriesOf(pages.map((p) => p.url)).length} directorie(s)`);
  },
};
