import { createSecureContext, rootCertificates } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import { AddressPolicy, ipLiteral } from './address-policy.ts';
import { checkDestination, parseDestination } from './destination-check.ts';
import { guardedLookup, type LookupFn } from './guarded-lookup.ts';
import { classifyOutboundError, DestinationRefusedError } from './outbound-error.ts';

export interface OutboundClientOptions {
  requireHttps: boolean;
  /** CIDRs that may be reached although private/loopback/link-local (tests: 127.0.0.0/8, ::1/128). */
  allowPrivateCidrs: readonly string[];
  /** CIDRs refused even when allow-listed (the verification probe's `verification.denyNetworks`). */
  denyCidrs?: readonly string[];
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  caCerts: readonly string[];
  connectTimeoutMs: number;
  defaultTimeoutMs: number;
  maxConnectionsPerOrigin: number;
  /** Response bytes kept for the caller; the rest is read and discarded. */
  maxResponseBytes: number;
  userAgent: string;
  /** Test seam: replaces DNS resolution. */
  resolve?: LookupFn;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-request limit (connect to last body byte); defaults to `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Aborts the request (e.g. on shutdown). */
  signal?: AbortSignal;
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The response body as UTF-8, cut at `maxResponseBytes`. */
  body: string;
  truncated: boolean;
  durationMs: number;
}

/**
 * The one outbound HTTP client (webhooks, scan callbacks, remote executors, ownership
 * verification probes): undici's `request` over a pooled keep-alive Agent, with the
 * SSRF guard in the connector. Every connection resolves its host through
 * `guardedLookup` and re-checks the peer address after connecting (which also covers
 * IP-literal hosts, for which Node skips lookup).
 * Redirects are never followed: a 3xx is returned to the caller as is.
 */
export class OutboundHttpClient {
  readonly policy: AddressPolicy;
  readonly #o: OutboundClientOptions;
  readonly #agent: Agent;

  constructor(options: OutboundClientOptions) {
    this.#o = options;
    this.policy = new AddressPolicy(options.allowPrivateCidrs, options.denyCidrs);
    const lookup = guardedLookup(this.policy, options.resolve);
    const base = buildConnector({
      timeout: options.connectTimeoutMs,
      // Built once: passing `ca` per connection would re-parse every root certificate on
      // each TLS handshake (tens of ms of blocked event loop each).
      ...(options.caCerts.length ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...options.caCerts] }) } : {}),
      lookup,
    } as buildConnector.BuildOptions);
    const policy = this.policy;
    this.#agent = new Agent({
      connections: options.maxConnectionsPerOrigin,
      connect(opts, callback) {
        return base(opts, (err, socket) => {
          if (err || !socket) return callback(err ?? new Error('no socket'), null);
          const peer = socket.remoteAddress ?? '';
          const refused = policy.refusal(peer);
          if (refused) {
            socket.destroy();
            return callback(new DestinationRefusedError(opts.hostname, peer, refused), null);
          }
          callback(null, socket);
        });
      },
    });
  }

  /** Registration-time check of a destination URL (form + current DNS answer). Throws OutboundError. */
  checkUrl(url: string): Promise<URL> {
    return checkDestination(url, { policy: this.policy, requireHttps: this.#o.requireHttps, resolve: this.#o.resolve });
  }

  /** Sends one request. Resolves with any HTTP status; rejects with OutboundError when there is no answer. */
  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const started = performance.now();
    const x = this.#begin(req.url, req.timeoutMs, req.signal);
    const { url, timeoutMs } = x;
    const limit = req.maxResponseBytes ?? this.#o.maxResponseBytes;
    try {
      const res = await request(url, {
        method: req.method ?? 'POST',
        headers: { 'user-agent': this.#o.userAgent, ...req.headers },
        body: req.body,
        signal: x.signal,
        dispatcher: this.#agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (kept < limit) {
          const part = chunk.subarray(0, limit - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (kept >= limit && chunk.length) truncated = truncated || kept + chunk.length > limit;
      }
      return {
        statusCode: res.statusCode,
        headers: res.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        truncated,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      throw x.failure(err);
    } finally {
      x.end();
    }
  }

  /**
   * A GET whose body is handed to `consume` as it arrives, never buffered here: large
   * downloads (the EPSS feed) in flat memory. Same address policy as `request`; redirects
   * are not followed (the caller decides, each hop checked again). `timeoutMs` bounds the
   * whole exchange, `consume` included.
   */
  async download<T>(req: { url: string; headers?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal }, consume: (res: { statusCode: number; headers: IncomingHttpHeaders; body: AsyncIterable<Buffer> }) => Promise<T>): Promise<T> {
    const x = this.#begin(req.url, req.timeoutMs, req.signal);
    const { url, timeoutMs } = x;
    let res: Awaited<ReturnType<typeof request>> | undefined;
    try {
      res = await request(url, { method: 'GET', headers: { 'user-agent': this.#o.userAgent, ...req.headers }, signal: x.signal, dispatcher: this.#agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (err) {
      x.end();
      throw x.failure(err);
    }
    try {
      return await consume({ statusCode: res.statusCode, headers: res.headers, body: res.body as AsyncIterable<Buffer> });
    } finally {
      x.end();
      // An unread rest (a redirect's body, a refused feed) is dropped; undici reports that as an abort nobody needs.
      res.body.on('error', () => {});
      res.body.destroy();
    }
  }

  /**
   * The start every exchange shares: the destination checked (an address literal against
   * the policy; names are checked at connect time), and one controller with one cleared
   * timer per request: AbortSignal.timeout() would leave a timer behind every request that
   * fires (and allocates an error) long after it ended. `end` must be called once.
   */
  #begin(raw: string, timeout: number | undefined, outer: AbortSignal | undefined) {
    const url = parseDestination(raw, this.#o);
    const literal = ipLiteral(url.hostname);
    const refused = literal ? this.policy.refusal(literal) : null;
    if (literal && refused) throw new DestinationRefusedError(url.hostname, literal, refused);
    const timeoutMs = timeout ?? this.#o.defaultTimeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    return {
      url,
      timeoutMs,
      signal: controller.signal,
      end: () => {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      },
      failure: (err: unknown) => {
        const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
        return classifyOutboundError(err, timedOut, { host: url.hostname, port, timeoutMs, connectTimeoutMs: this.#o.connectTimeoutMs });
      },
    };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
