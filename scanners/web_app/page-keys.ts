import { headerOf, type HttpResponse } from '../_lib/http.ts';

/**
 * How the web checks name and group what they fetched: a finding's place is a path
 * without its query string (one listing reached through nine sort links is one
 * listing), and the directories of crawled paths are where sensitive files are looked for.
 */

/** True when the response says it is HTML. */
export function isHtml(res: Pick<HttpResponse, 'headers'>): boolean {
  return /html/i.test(headerOf(res as HttpResponse, 'content-type') ?? '');
}

/**
 * Apache mod_autoindex's column-sort links (`?C=N;O=D`, `?C=M;O=A`, with `F=`, `V=` and
 * `P=` too): the same listing sorted another way.
 */
export function sortLink(url: URL): boolean {
  return url.search.length > 1 && /^\?(?:[COFVP]=[^;&=]*[;&]?)+$/.test(url.search);
}

/** `origin + path`, without query or fragment: the location of page findings. */
export function pathKey(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/** The path of a URL, for titles and evidence lists. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/**
 * Every directory of the crawled URLs, root first: `/a/b/c.txt` gives `/`, `/a/`, `/a/b/`.
 * Directories seen as listings or index pages are included as themselves.
 */
export function directoriesOf(urls: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const raw of urls) {
    const url = new URL(raw);
    const parts = url.pathname.split('/').slice(1, -1);
    dirs.add(`${url.origin}/`);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${url.origin}/${parts.slice(0, i).join('/')}/`);
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
}

/** Up to `max` items, then how many more (for evidence lists that stay readable). */
export function listed<T>(items: readonly T[], max = 100): { items: T[]; more: number } {
  return { items: items.slice(0, max), more: Math.max(0, items.length - max) };
}
