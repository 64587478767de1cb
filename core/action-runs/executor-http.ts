import type { CannedResponse } from '../../config/executors-config.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { ExecutorHttp, ExecutorHttpRequest, HttpResponse, LogLevel } from '../plugin-api/index.ts';

/** Executors keep at most this much of a response unless they ask for less. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

type Log = (level: LogLevel, message: string) => void;

function toHandleResponse(res: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: string; truncated: boolean; durationMs: number }): HttpResponse {
  return { statusCode: res.statusCode, headers: res.headers, body: res.body, truncated: res.truncated, durationMs: res.durationMs };
}

/** Production runs: the platform's SSRF-guarded client, bounded by the run's signal. */
export function productionHttp(outbound: OutboundHttpClient, signal: AbortSignal): ExecutorHttp {
  return {
    async request(req: ExecutorHttpRequest): Promise<HttpResponse> {
      if (req.method === undefined) throw new TypeError('ctx.http.request needs a method');
      const res = await outbound.request({
        url: req.url,
        method: req.method,
        headers: req.headers,
        body: req.body,
        timeoutMs: req.timeoutMs,
        signal: req.signal ? AbortSignal.any([req.signal, signal]) : signal,
        maxResponseBytes: Math.min(req.maxResponseBytes ?? MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES),
      });
      return toHandleResponse(res);
    },
  };
}

/** Where a sandbox request goes: the configured stand-in origin, keeping path and query. */
function redirected(url: string, target: string): string {
  const from = new URL(url);
  const to = new URL(target);
  const base = to.pathname.replace(/\/$/, '');
  return `${to.origin}${base}${from.pathname}${from.search}`;
}

/**
 * Sandbox runs never reach production: with `executors.sandbox.httpTarget` every request
 * is sent there instead (same path and query, original host in `x-rampart-original-url`),
 * otherwise it is recorded in the run's log and answered with the canned response.
 * Header values are not logged: they may carry (sandbox) credentials.
 */
export function sandboxHttp(o: { outbound: OutboundHttpClient; httpTarget: string | null; canned: CannedResponse; signal: AbortSignal; log: Log }): ExecutorHttp {
  const production = productionHttp(o.outbound, o.signal);
  return {
    async request(req: ExecutorHttpRequest): Promise<HttpResponse> {
      const method = req.method;
      let original: URL;
      try {
        original = new URL(req.url);
      } catch {
        throw new TypeError(`invalid URL: ${String(req.url).slice(0, 200)}`);
      }
      if (o.httpTarget) {
        const url = redirected(original.href, o.httpTarget);
        o.log('INFO', `sandbox: ${method} ${original.origin}${original.pathname} sent to the sandbox target instead`);
        return production.request({ ...req, url, headers: { ...req.headers, 'x-rampart-original-url': original.href, 'x-rampart-sandbox': '1' } });
      }
      const bytes = req.body === undefined ? 0 : Buffer.byteLength(req.body);
      o.log('INFO', `sandbox: ${method} ${original.origin}${original.pathname} recorded, not sent (${bytes} body bytes); canned ${o.canned.status} answer`);
      return { statusCode: o.canned.status, headers: { ...o.canned.headers }, body: o.canned.body, truncated: false, durationMs: 0 };
    },
  };
}
