import type { CheckContext, HttpMethod } from '../../core/plugin-api/index.ts';

export interface HttpResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, cut at `maxBodyBytes`. */
  body: string;
  /** The same bytes, for binary signatures. */
  bytes: Buffer;
  /** Milliseconds from sending the request to the last body byte kept (time-based checks). */
  elapsedMs: number;
}

export interface HttpOptions {
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string;
  /** Default 256 KiB: enough for a page or an API document, bounded for a hostile target. */
  maxBodyBytes?: number;
  timeoutMs?: number;
}

/** Did `ctx.http` refuse the request (host out of scope, or a deny-listed address) rather than fail to get an answer? */
export function outOfScope(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'out_of_scope';
}

/**
 * One HTTP request through the check's `ctx.http`, the contract's scope-guarded client: the
 * host and every address it resolves to are judged before connecting and the peer after,
 * certificates are not verified (the ssl scanner judges them), no redirect is followed
 * (the crawler decides), and an idempotent request whose kept-alive connection was
 * dropped before the answer is sent once more on a fresh one (logged). The body is read
 * up to a bound.
 */
export async function httpRequest(ctx: CheckContext, url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const res = await ctx.http.request({
    url,
    method: opts.method,
    headers: opts.headers,
    body: opts.body,
    maxResponseBytes: opts.maxBodyBytes ?? 256 * 1024,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
  const bytes = Buffer.isBuffer(res.bytes) ? res.bytes : Buffer.from(res.bytes.buffer, res.bytes.byteOffset, res.bytes.byteLength);
  return { url, status: res.statusCode, headers: res.headers, body: res.body, bytes, elapsedMs: res.durationMs };
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
      if (ctx.signal.aborted || outOfScope(err)) throw err;
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
