import * as cheerio from 'cheerio';
import type { CheckContext } from '../../core/plugin-api/index.ts';
import { headerOf, httpRequest, type HttpResponse } from '../_lib/http.ts';

export interface CrawledPage extends HttpResponse {
  depth: number;
  /** The URL that was requested before redirects. */
  requested: string;
}

export interface CrawlLimits {
  maxDepth: number;
  maxPages: number;
  followRedirects: boolean;
}

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

function linksOf(page: HttpResponse): string[] {
  const type = headerOf(page, 'content-type') ?? '';
  if (!/html/i.test(type)) return [];
  const $ = cheerio.load(page.body);
  const out: string[] = [];
  $('a[href], iframe[src], frame[src], form[action]').each((_i, el) => {
    const v = $(el).attr('href') ?? $(el).attr('src') ?? $(el).attr('action');
    if (v) out.push(v);
  });
  return out;
}

/**
 * Breadth-first crawl of one origin: same scheme, host and port as the start URL, each
 * host also asked to `ctx.inScope`, bounded by depth and page budget. Every check that
 * needs pages crawls on its own (checks are independent units run by different workers).
 */
export async function crawl(ctx: CheckContext, start: string, limits = crawlLimits(ctx)): Promise<CrawledPage[]> {
  const origin = new URL(start).origin;
  const seen = new Set<string>([normalise(start)]);
  const queue: Array<{ url: string; depth: number }> = [{ url: start, depth: 0 }];
  const pages: CrawledPage[] = [];
  while (queue.length && pages.length < limits.maxPages) {
    if (ctx.signal.aborted) break;
    const { url, depth } = queue.shift()!;
    let res: HttpResponse;
    try {
      res = await fetchPage(ctx, url, limits.followRedirects);
    } catch (err) {
      ctx.log('DEBUG', `crawl: ${url}: ${(err as Error).message}`);
      continue;
    }
    pages.push({ ...res, depth, requested: url });
    if (depth >= limits.maxDepth) continue;
    for (const href of linksOf(res)) {
      let next: URL;
      try {
        next = new URL(href, url);
      } catch {
        continue;
      }
      next.hash = '';
      if (next.origin !== origin || !ctx.inScope(next.hostname.replace(/^\[|\]$/g, ''))) continue;
      const key = normalise(next.href);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ url: next.href, depth: depth + 1 });
    }
  }
  return pages;
}

function normalise(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}
