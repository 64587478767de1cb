import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest, snippet, type HttpResponse } from '../../_lib/http.ts';
import { RequestBudget } from '../request-budget.ts';
import { crawl, crawlLimits } from '../crawler.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { directoriesOf, pathKey } from '../page-keys.ts';

/** Titles/headings of the listings Apache, nginx, lighttpd, IIS, Python and Node serve. */
const LISTING = [/<title>\s*Index of \//i, /<h1>\s*Index of \//i, /<title>\s*Directory listing for \//i, /\[To Parent Directory\]/i, /<title>\s*listing directory \//i];

function listingIndicator(res: HttpResponse): number {
  if (res.status !== 200 || !/html/i.test(headerOf(res, 'content-type') ?? '')) return -1;
  for (const re of LISTING) {
    const m = re.exec(res.body);
    if (m) return m.index;
  }
  return -1;
}

export const directoryListing: ScannerCheck = {
  id: 'web_app:directory-listing',
  title: 'Directory listing enabled',
  category: 'exposure',
  maxSeverity: 'medium',
  description: 'Crawls the origin (max_depth, page budget) and also requests the parent directories of crawled paths; reports pages that are server-generated directory indexes, once per path (query strings such as sort links do not make another listing).',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const limits = crawlLimits(ctx);
    const pages = await crawl(ctx, start, limits);
    const seen = new Set(pages.map((p) => pathKey(p.url)));
    const candidates: HttpResponse[] = [...pages];
    // Listings often sit above the linked files: ask for each directory of a crawled path once.
    const budget = RequestBudget.of(ctx);
    for (const dir of directoriesOf(pages.map((p) => p.url)).filter((d) => !seen.has(d)).slice(0, limits.maxPages)) {
      if (!budget.take()) continue;
      try {
        candidates.push(await httpRequest(ctx, dir));
      } catch (err) {
        ctx.log('WARN', `${dir} could not be fetched: ${(err as Error).message}`);
      }
    }
    budget.report(ctx, `${budget.refused} parent directorie(s) not asked for`);
    const reported = new Set<string>();
    for (const res of candidates) {
      const at = listingIndicator(res);
      const where = pathKey(res.url);
      if (at < 0 || reported.has(where)) continue;
      reported.add(where);
      ctx.report({
        title: `Directory listing at ${new URL(where).pathname}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${where} is a server-generated directory index: every file in it can be discovered, including backups and files never linked.`,
        remediation: 'Disable automatic indexes (Apache `Options -Indexes`, nginx `autoindex off`) or add an index document.',
        evidence: { url: where, method: 'GET', status: res.status, response_indicator: snippet(res.body, at) },
        tags: ['web', 'exposure'],
        location: where,
      });
    }
  },
};
