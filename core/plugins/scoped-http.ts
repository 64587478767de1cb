import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import type { CheckHttp, CheckHttpRequest, CheckHttpResponse, LogLevel } from '../plugin-api/index.ts';
import { OutOfScopeError, type ScopeGuard } from './scope-guard.ts';

export interface ScopedHttpOptions {
  /** Judges every host and address (the check's scope and deny list). */
  guard: ScopeGuard;
  /** The check's signal: aborts every request. */
  signal: AbortSignal;
  /** Default per-request limit. */
  timeoutMs: number;
  /** The check's log: a request sent again after a dropped connection says so there. */
  log?: (level: LogLevel, message: string) => void;
}

const DEFAULT_MAX_BYTES = 256 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Methods RFC 9110 §9.2.2 calls idempotent: sending one twice does no more than once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/** How a connection dropped before the answer shows up: undici "other side closed", resets, broken pipes. */
const DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** True for an error meaning the connection went away before an answer (checked through `cause`). */
export function droppedConnection(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && DROPPED.has(e.code)) return true;
  }
  return false;
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** `ctx.http` plus the close the engine calls when the check ends. */
export interface ScopedHttp extends CheckHttp {
  close(): Promise<void>;
}

/**
 * The scope-guarded HTTP handle checks get. The scope is asked about the host before
 * any connection; the connector refuses a name that resolves to any deny-listed address
 * and re-checks the peer after connecting (IP literals skip lookup), so neither DNS
 * rebinding nor a redirect reaches what the scan must not touch.
 */
export function scopedHttp(o: ScopedHttpOptions): ScopedHttp {
  const { denied, inScope, lookup } = o.guard;
  const agents = new Map<boolean, Agent>();
  const makeAgent = (verify: boolean, keepAliveTimeout: number): Agent => {
    const base = buildConnector({ rejectUnauthorized: verify, timeout: 5_000, lookup } as buildConnector.BuildOptions);
    return new Agent({
      keepAliveTimeout,
      connect(opts, callback) {
        base(opts, (err, socket) => {
          if (err || !socket) return callback(err ?? new Error('no socket'), null);
          const peer = socket.remoteAddress ?? '';
          if (isIP(peer) && denied(peer)) {
            socket.destroy();
            return callback(new OutOfScopeError(`${opts.hostname} connected to ${peer}, which is on the scan deny list`), null);
          }
          callback(null, socket);
        });
      },
    });
  };
  const agentFor = (verify: boolean): Agent => {
    let agent = agents.get(verify);
    if (!agent) {
      agent = makeAgent(verify, 1_000);
      agents.set(verify, agent);
    }
    return agent;
  };

  /**
   * One request; an idempotent one whose connection was dropped before the answer (a
   * kept-alive socket the server closed) is sent once more on a new connection.
   */
  async function once(url: URL, req: CheckHttpRequest, method: string, body: string | undefined): Promise<CheckHttpResponse> {
    try {
      return await attempt(url, req, method, body, agentFor(req.verifyTls === true));
    } catch (err) {
      if (o.signal.aborted || req.signal?.aborted || !IDEMPOTENT.has(method.toUpperCase()) || !droppedConnection(err)) throw err;
      o.log?.('INFO', `${method} ${url.href}: connection dropped before the answer (${(err as Error).message}); sent again on a new connection`);
      const fresh = makeAgent(req.verifyTls === true, 1);
      try {
        return await attempt(url, req, method, body, fresh);
      } finally {
        void fresh.destroy().catch(() => undefined);
      }
    }
  }

  async function attempt(url: URL, req: CheckHttpRequest, method: string, body: string | undefined, dispatcher: Agent): Promise<CheckHttpResponse> {
    const host = hostOf(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutOfScopeError(`${url.protocol} is not HTTP`);
    if (!inScope(host)) throw new OutOfScopeError(`${host} is outside the scan scope`);
    if (isIP(host) && denied(host)) throw new OutOfScopeError(`${host} is on the scan deny list`);
    const timeoutMs = req.timeoutMs ?? Math.min(10_000, o.timeoutMs);
    // One controller and one timer per request: AbortSignal.any/timeout cost far more per
    // call and keep every request's signal tied to the check's for its whole life.
    const controller = new AbortController();
    const sources = req.signal ? [o.signal, req.signal] : [o.signal];
    const onAbort = (): void => controller.abort(sources.find((s) => s.aborted)?.reason);
    for (const s of sources) {
      if (s.aborted) onAbort();
      else s.addEventListener('abort', onAbort, { once: true });
    }
    const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    try {
      const started = performance.now();
      const res = await request(url, {
        dispatcher,
        method: method as 'GET',
        headers: { 'user-agent': 'Rampart-Scanner/1', ...req.headers },
        body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const max = req.maxResponseBytes ?? DEFAULT_MAX_BYTES;
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (kept + chunk.length > max) {
          chunks.push(chunk.subarray(0, max - kept));
          kept = max;
          truncated = true;
          res.body.destroy();
          break;
        }
        chunks.push(chunk);
        kept += chunk.length;
      }
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      return {
        url: url.href,
        statusCode: res.statusCode,
        headers: res.headers as CheckHttpResponse['headers'],
        body: bytes.toString('utf8'),
        bytes,
        truncated,
        durationMs: Math.round(performance.now() - started),
      };
    } finally {
      clearTimeout(timer);
      for (const s of sources) s.removeEventListener('abort', onAbort);
    }
  }

  return {
    async request(req) {
      let url = new URL(req.url);
      let method = req.method ?? 'GET';
      let body = req.body;
      for (let hop = 0; ; hop++) {
        const res = await once(url, req, method, body);
        const location = res.headers.location;
        if (!REDIRECTS.has(res.statusCode) || typeof location !== 'string' || hop >= (req.maxRedirects ?? 0)) return res;
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return res;
        }
        // Out of scope: the 3xx itself is the answer (an open-redirect check wants it).
        if ((next.protocol !== 'http:' && next.protocol !== 'https:') || !inScope(hostOf(next))) return res;
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
      }
    },
    async close() {
      await Promise.all([...agents.values()].map((a) => a.destroy()));
      agents.clear();
    },
  };
}
