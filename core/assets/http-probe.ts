import type { OutboundConfig } from '../../config/config-schema.ts';
import type { LookupFn } from '../outbound/guarded-lookup.ts';
import { OutboundHttpClient } from '../outbound/http-client.ts';
import { classifyOutboundError, type OutboundErrorCode } from '../outbound/outbound-error.ts';

export interface HttpProbeOptions {
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  /** CIDRs never contacted, even when `outbound.allowPrivateCidrs` admits them (link-local by default). */
  denyNetworks: string[];
  /** The address policy and trust every outbound call uses. */
  outbound: Pick<OutboundConfig, 'allowPrivateCidrs' | 'caCerts'>;
  /** Test seam: replaces DNS resolution (behind the same guarded lookup). */
  resolve?: LookupFn;
}

export type HttpProbeResult =
  | { ok: true; url: string; status: number; body: string }
  | { ok: false; url: string; code: OutboundErrorCode | 'redirect_refused'; error: string };

/**
 * GET for ownership checks through the one outbound client, so the probe obeys the same
 * address policy and allow-list as webhooks and callbacks (checked on the addresses
 * actually dialled, at connect time) plus `denyNetworks`. Plain http is allowed: an
 * owner may publish the token on an http-only site. A redirect is followed only within
 * the same origin (scheme, host and port): anywhere else could be an internal service
 * the page points at. Time and body size are bounded.
 */
export async function httpProbe(startUrl: string, o: HttpProbeOptions): Promise<HttpProbeResult> {
  const client = new OutboundHttpClient({
    requireHttps: false,
    allowPrivateCidrs: o.outbound.allowPrivateCidrs,
    denyCidrs: o.denyNetworks,
    caCerts: o.outbound.caCerts,
    connectTimeoutMs: o.timeoutMs,
    defaultTimeoutMs: o.timeoutMs,
    maxConnectionsPerOrigin: 1,
    maxResponseBytes: o.maxBodyBytes,
    userAgent: 'Rampart-Verification/1',
    resolve: o.resolve,
  });
  let url = startUrl;
  try {
    const origin = new URL(startUrl).origin;
    for (let hop = 0; ; hop++) {
      const res = await client.request({ method: 'GET', url, headers: { accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' } });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return { ok: false, url, code: 'redirect_refused', error: 'redirected to an invalid location' };
        }
        if (next.origin !== origin) {
          return { ok: false, url, code: 'redirect_refused', error: 'redirected to another host or port; only redirects within the same origin are followed' };
        }
        if (hop >= o.maxRedirects) return { ok: false, url, code: 'redirect_refused', error: `more than ${o.maxRedirects} redirects` };
        url = next.href;
        continue;
      }
      return { ok: true, url, status: res.statusCode, body: res.body };
    }
  } catch (err) {
    const e = classifyOutboundError(err, false);
    return { ok: false, url, code: e.code, error: e.message };
  } finally {
    await client.close().catch(() => undefined);
  }
}
