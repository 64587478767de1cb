import type * as cheerio from 'cheerio';
import { loadHtml } from '../_lib/html-document.ts';
import type { CheckContext } from '../../core/plugin-api/index.ts';
import { headerOf, httpRequest, type HttpResponse } from '../_lib/http.ts';
import { formsOf, type PageForm } from './forms.ts';
import { isHtml, sortLink } from './page-keys.ts';

export interface CrawledPage extends HttpResponse {
  depth: number;
  /** The URL that was requested before redirects. */
  requested: string;
  /** Forms of an HTML page (action resolved, fields with their default values). */
  forms: PageForm[];
}

export interface CrawlLimits {
  maxDepth: number;
  maxPages: number;
  followRedirects: boolean;
}

/** Query-string variants of one path the crawler fetches (`/item?id=1`, `/item?id=2`…): the rest add pages, not surface. */
const VARIANTS_PER_PATH = 3;

/** Crawl limits from scan options (`max_depth` 5, `follow_redirects` true, `max_pages` 20). */
export function crawlLimits(ctx: CheckContext): CrawlLimits {
  return {
    maxDepth: Math.max(0, Math.min(10, Number(ctx.options.max_depth ?? 5))),
    maxPages: Math.max(1, Math.min(500, Number(ctx.options.max_pages ?? 20))),
    followRedirects: ctx.options.follow_redirects !== false,
  };
}

/** GET with manual redirects: at most 5 hops, and never off the origin. */
export async function fetchPage(ctx: CheckContext, url: string, follow: boolean): Promise<HttpResponse> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await httpRequest(ctx, current);
    const location = headerOf(res, 'location');
    if (!follow || hop >= 5 || res.status < 300 || res.status >= 400 || !location) return res;
    const next = new URL(location, current);
    if (next.origin !== new URL(url).origin) return res;
    current = next.href;
  }
}

function linksOf($: cheerio.CheerioAPI | null): string[] {
  if (!$) return [];
  const out: string[] = [];
  $('a[href], area[href], iframe[src], frame[src], form[action]').each((_i, el) => {
    const v = $(el).attr('href') ?? $(el).attr('src') ?? $(el).attr('action');
    if (v) out.push(v);
  });
  return out;
}

/**
 * Breadth-first crawl of one origin: same scheme, host and port as the start URL, each
 * host also asked to `ctx.inScope`, bounded by depth and page budget. Apache's index sort
 * links (`?C=N;O=D`) are skipped (the same listing again), and at most three query
 * variants of one path are fetched. A start page that cannot be fetched fails the check;
 * any other page that cannot be fetched is a warning (the scan detail shows it), never a
 * silent gap. Every check that needs pages crawls on its own (checks are independent
 * units run by different workers).
 */
export async function crawl(ctx: CheckContext, start: string, limits = crawlLimits(ctx)): Promise<CrawledPage[]> {
  const origin = new URL(start).origin;
  const seen = new Set<string>([normalise(start)]);
  const variants = new Map<string, number>();
  const queue: Array<{ url: string; depth: number }> = [{ url: start, depth: 0 }];
  const pages: CrawledPage[] = [];
  const failed: string[] = [];
  while (queue.length && pages.length < limits.maxPages) {
    if (ctx.signal.aborted) break;
    const { url, depth } = queue.shift()!;
    let res: HttpResponse;
    try {
      res = await fetchPage(ctx, url, limits.followRedirects);
    } catch (err) {
      if (url === start) throw new Error(`the start page ${url} could not be fetched: ${(err as Error).message}`);
      failed.push(`${new URL(url).pathname}: ${(err as Error).message}`);
      continue;
    }
    // One parse per page, for its forms and its links.
    const $ = isHtml(res) ? loadHtml(res.body) : null;
    pages.push({ ...res, depth, requested: url, forms: $ ? formsOf($, res.url) : [] });
    if (depth >= limits.maxDepth) continue;
    for (const href of linksOf($)) {
      let next: URL;
      try {
        next = new URL(href, res.url);
      } catch {
        continue;
      }
      next.hash = '';
      if (next.origin !== origin || !ctx.inScope(next.hostname.replace(/^\[|\]$/g, ''))) continue;
      if (sortLink(next)) continue;
      const key = normalise(next.href);
      if (seen.has(key)) continue;
      seen.add(key);
      if (next.search) {
        const path = next.origin + next.pathname;
        const n = variants.get(path) ?? 0;
        if (n >= VARIANTS_PER_PATH) continue;
        variants.set(path, n + 1);
      }
      queue.push({ url: next.href, depth: depth + 1 });
    }
  }
  if (failed.length) {
    ctx.log('WARN', `crawl: ${failed.length} page(s) could not be fetched and were not judged: ${failed.slice(0, 5).join('; ')}${failed.length > 5 ? '; …' : ''}`);
  }
  if (queue.length && pages.length >= limits.maxPages) {
    ctx.log('INFO', `crawl: page budget of ${limits.maxPages} reached with ${queue.length} known page(s) not fetched (raise max_pages to cover more)`);
  }
  return pages;
}

function normalise(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}
