import { Agent, request } from 'undici';
import type { CheckContext } from '../../core/plugin-api/index.ts';

export interface HttpResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, cut at `maxBodyBytes`. */
  body: string;
  /** The same bytes, for binary signatures. */
  bytes: Buffer;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Default 256 KiB: enough for a page or an API document, bounded for a hostile target. */
  maxBodyBytes?: number;
  timeoutMs?: number;
}

// Scanners talk to the asset itself: certificates are not verified here (the ssl
// scanner judges them) and redirects are never followed implicitly (the crawler decides).
const agent = new Agent({ connect: { rejectUnauthorized: false, timeout: 5_000 }, keepAliveTimeout: 1_000 });

/** Thrown when a URL's host is outside the scan's scope or deny-listed. */
export class OutOfScopeError extends Error {}

/**
 * One HTTP request to an in-scope URL. The host is checked with `ctx.inScope` before
 * connecting; the check's signal aborts it; the body is read up to a bound.
 */
export async function httpRequest(ctx: CheckContext, url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!ctx.inScope(host)) throw new OutOfScopeError(`${host} is outside the scan scope`);
  const timeout = opts.timeoutMs ?? Math.min(10_000, ctx.timeoutMs);
  const res = await request(url, {
    dispatcher: agent,
    method: (opts.method ?? 'GET') as 'GET',
    headers: { 'user-agent': 'Rampart-Scanner/1', ...opts.headers },
    body: opts.body,
    signal: ctx.signal,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const max = opts.maxBodyBytes ?? 256 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    chunks.push(size + buf.length > max ? buf.subarray(0, max - size) : buf);
    size += buf.length;
    if (size >= max) {
      res.body.destroy();
      break;
    }
  }
  const bytes = Buffer.concat(chunks);
  return { url, status: res.statusCode, headers: res.headers as HttpResponse['headers'], body: bytes.toString('utf8'), bytes };
}

/** A header as one string (multi-valued headers joined with `, `). */
export function headerOf(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Every value of a header (for Set-Cookie). */
export function headerValues(res: HttpResponse, name: string): string[] {
  const v = res.headers[name.toLowerCase()];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** A short, single-line excerpt of a body for evidence. */
export function snippet(text: string, at = 0, length = 200): string {
  const start = Math.max(0, at - 40);
  return text.slice(start, start + length).replace(/\s+/g, ' ').trim();
}
