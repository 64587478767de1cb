import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest, snippet, type HttpResponse } from '../../_lib/http.ts';
import { crawl, crawlLimits } from '../crawler.ts';
import { startUrl } from '../../_lib/endpoint.ts';

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

/** Parent directories of crawled paths: listings often sit one level above the linked files. */
function parentDirs(urls: string[]): string[] {
  const dirs = new Set<string>();
  for (const u of urls) {
    const url = new URL(u);
    const parts = url.pathname.split('/').slice(1, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${url.origin}/${parts.slice(0, i).join('/')}/`);
  }
  return [...dirs];
}

export const directoryListing: ScannerCheck = {
  id: 'web_app:directory-listing',
  title: 'Directory listing enabled',
  category: 'exposure',
  maxSeverity: 'medium',
  description: 'Crawls the origin (max_depth, page budget) and also requests the parent directories of crawled paths; reports pages that are server-generated directory indexes.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const limits = crawlLimits(ctx);
    const pages = await crawl(ctx, start, limits);
    const seen = new Set(pages.map((p) => p.requested));
    const candidates: HttpResponse[] = [...pages];
    for (const dir of parentDirs(pages.map((p) => p.url)).filter((d) => !seen.has(d)).slice(0, limits.maxPages)) {
      try {
        candidates.push(await httpRequest(ctx, dir));
      } catch (err) {
        ctx.log('DEBUG', `${dir}: ${(err as Error).message}`);
      }
    }
    for (const res of candidates) {
      const at = listingIndicator(res);
      if (at < 0) continue;
      ctx.report({
        title: `Directory listing at ${new URL(res.url).pathname}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${res.url} is a server-generated directory index: every file in it can be discovered, including backups and files never linked.`,
        remediation: 'Disable automatic indexes (Apache `Options -Indexes`, nginx `autoindex off`) or add an index document.',
        evidence: { url: res.url, method: 'GET', status: res.status, response_indicator: snippet(res.body, at) },
        tags: ['web', 'exposure'],
        location: res.url,
      });
    }
  },
};
