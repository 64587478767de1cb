import type { CheckContext } from '../../../core/plugin-api/index.ts';
import { httpRequest, type HttpResponse } from '../../_lib/http.ts';
import type { CrawledPage } from '../crawler.ts';
import { pathKey, pathOf } from '../page-keys.ts';

/**
 * One place a value reaches the application: a query parameter of a crawled URL or a
 * field of a crawled form. The other parameters keep the values the site gave them.
 */
export interface InjectionPoint {
  method: 'GET' | 'POST';
  /** The URL without the injected parameter's new value (GET: with the other query parameters). */
  url: string;
  parameter: string;
  /** The value the site itself used (link or form default). */
  original: string;
  /** Every parameter sent, in order, with the site's values. */
  params: Array<[string, string]>;
}

/** Injection points one check tests at most: beyond this a site has forms generated, not more surface. */
export const MAX_POINTS = 60;

/**
 * The points of the crawled pages: each query parameter of each crawled URL and each
 * typed field of each form, once per (method, path, parameter).
 */
export function injectionPoints(pages: readonly CrawledPage[]): InjectionPoint[] {
  const points: InjectionPoint[] = [];
  const seen = new Set<string>();
  const add = (method: 'GET' | 'POST', url: string, params: Array<[string, string]>, injectable: (name: string) => boolean) => {
    for (const [name, value] of params) {
      const key = `${method} ${pathKey(url)} ${name}`;
      if (!injectable(name) || seen.has(key)) continue;
      seen.add(key);
      points.push({ method, url, parameter: name, original: value, params });
    }
  };
  for (const page of pages) {
    const u = new URL(page.requested);
    if (u.search) add('GET', `${u.origin}${u.pathname}`, [...u.searchParams.entries()], () => true);
    for (const form of page.forms) {
      if (new URL(form.action).origin !== u.origin) continue;
      const action = new URL(form.action);
      // A GET form replaces the action's query string (browsers drop it); a POST keeps it in the URL.
      const params = form.fields.map((f) => [f.name, f.value] as [string, string]);
      const typed = new Set(form.fields.filter((f) => f.injectable).map((f) => f.name));
      add(form.method, `${action.origin}${action.pathname}${form.method === 'POST' ? action.search : ''}`, params, (n) => typed.has(n));
    }
  }
  return points.slice(0, MAX_POINTS);
}

/** The request that sends `value` in the point's parameter (for evidence, and to send). */
export function requestOf(point: InjectionPoint, value: string): { method: 'GET' | 'POST'; url: string; body?: string } {
  const params = new URLSearchParams(point.params.map(([k, v]) => [k, k === point.parameter ? value : v] as [string, string]));
  if (point.method === 'GET') {
    const url = new URL(point.url);
    url.search = params.toString();
    return { method: 'GET', url: url.href };
  }
  return { method: 'POST', url: point.url, body: params.toString() };
}

/** Sends `value` in the point's parameter. */
export function send(ctx: CheckContext, point: InjectionPoint, value: string, timeoutMs?: number): Promise<HttpResponse> {
  const req = requestOf(point, value);
  return httpRequest(ctx, req.url, {
    method: req.method,
    body: req.body,
    headers: req.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
    maxBodyBytes: 512 * 1024,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

/** The request as evidence: method, URL and (POST) body, the payload in place. */
export function describeRequest(point: InjectionPoint, value: string): string {
  const req = requestOf(point, value);
  return req.body === undefined ? `${req.method} ${req.url}` : `${req.method} ${req.url} (body: ${req.body})`;
}

/** Where a point's finding lives: method, path and parameter (one finding per vulnerable parameter). */
export function pointLocation(point: InjectionPoint): string {
  return `${point.method} ${pathKey(point.url)} ${point.parameter}`;
}

/** `q of GET /search`, for titles. */
export function pointName(point: InjectionPoint): string {
  return `parameter ${point.parameter} of ${point.method} ${pathOf(point.url)}`;
}
