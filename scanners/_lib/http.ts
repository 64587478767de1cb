import { performance } from 'node:perf_hooks';
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
  /** Milliseconds from sending the request to the last body byte kept (time-based checks). */
  elapsedMs?: number;
  /** The first attempt lost its connection (a kept-alive socket the server had closed) and was sent again. */
  retried?: boolean;
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
const CONNECT = { rejectUnauthorized: false, timeout: 5_000 };
const agent = new Agent({ connect: CONNECT, keepAliveTimeout: 1_000 });

/** Thrown when a URL's host is outside the scan's scope or deny-listed. */
export class OutOfScopeError extends Error {}

/** Methods RFC 9110 §9.2.2 calls idempotent: sending one twice does no more than once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/** How a connection the server dropped before answering shows up (undici "other side closed", resets, broken pipes). */
const DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * True for an error that means the connection went away before an answer: typically a
 * kept-alive socket the server closed just as the request was written. Sending an
 * idempotent request again on a new connection is then safe, and what browsers do.
 */
export function droppedConnection(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && DROPPED.has(e.code)) return true;
  }
  return false;
}

async function send(ctx: CheckContext, url: string, opts: HttpOptions, dispatcher: Agent): Promise<HttpResponse> {
  const timeout = opts.timeoutMs ?? Math.min(10_000, ctx.timeoutMs);
  const started = performance.now();
  const res = await request(url, {
    dispatcher,
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
  return { url, status: res.statusCode, headers: res.headers as HttpResponse['headers'], body: bytes.toString('utf8'), bytes, elapsedMs: Math.round(performance.now() - started) };
}

/**
 * One HTTP request to an in-scope URL. The host is checked with `ctx.inScope` before
 * connecting; the check's signal aborts it; the body is read up to a bound. An idempotent
 * request whose connection was dropped before the answer is sent once more, on a fresh
 * connection (the pool may hold more sockets the server has closed); anything else fails.
 */
export async function httpRequest(ctx: CheckContext, url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!ctx.inScope(host)) throw new OutOfScopeError(`${host} is outside the scan scope`);
  try {
    return await send(ctx, url, opts, agent);
  } catch (err) {
    if (ctx.signal.aborted || !IDEMPOTENT.has((opts.method ?? 'GET').toUpperCase()) || !droppedConnection(err)) throw err;
    ctx.log('INFO', `${opts.method ?? 'GET'} ${url}: connection dropped before the answer (${(err as Error).message}); sent again on a new connection`);
    const fresh = new Agent({ connect: CONNECT, keepAliveTimeout: 1, pipelining: 0 });
    try {
      return { ...(await send(ctx, url, opts, fresh)), retried: true };
    } finally {
      void fresh.destroy().catch(() => undefined);
    }
  }
}

/**
 * The requests of a check that sends several independent probes. A probe that fails
 * (reset, timeout, refused) is logged and answered null, so one bad answer does not cost
 * the check its other probes; `settle()` fails the check only when no probe got an answer
 * at all (the target did not answer, which the scan must show as a failed check).
 */
export class ProbeTally {
  #answered = 0;
  #lastError: unknown = null;

  async request(ctx: CheckContext, url: string, opts: HttpOptions = {}): Promise<HttpResponse | null> {
    try {
      const res = await httpRequest(ctx, url, opts);
      this.#answered++;
      return res;
    } catch (err) {
      if (ctx.signal.aborted || err instanceof OutOfScopeError) throw err;
      this.#lastError = err;
      ctx.log('WARN', `${opts.method ?? 'GET'} ${url} failed (${err instanceof Error ? err.message : String(err)}); the check goes on with its other probes`);
      return null;
    }
  }

  /** Throws the last failure when probes failed and none was answered. */
  settle(): void {
    if (this.#lastError !== null && this.#answered === 0) throw this.#lastError;
  }
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
