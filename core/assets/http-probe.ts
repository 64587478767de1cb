import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';

export interface HttpProbeOptions {
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  /** CIDRs never contacted (link-local/cloud metadata by default). */
  denyNetworks: string[];
}

export type HttpProbeResult =
  | { ok: true; url: string; status: number; contentType: string; body: string }
  | { ok: false; url: string; error: string };

function denied(address: string, deny: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>): boolean {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return deny.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
}

/**
 * GET for ownership checks: bounded time and body size, redirects followed only on
 * the same host name, and no connection to denied networks, whether the host is an
 * address literal or a name resolving to one (checked in the agent's lookup).
 */
export async function httpProbe(startUrl: string, o: HttpProbeOptions): Promise<HttpProbeResult> {
  const deny = o.denyNetworks.map((c) => ipaddr.parseCIDR(c));
  const agent = new Agent({
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connect: {
      timeout: o.timeoutMs,
      lookup(hostname, options, callback) {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 4);
          const list = addresses as LookupAddress[];
          const bad = list.find((a) => denied(a.address, deny));
          if (bad) return callback(Object.assign(new Error(`${hostname} resolves to ${bad.address}, a denied network`), { code: 'EDENIED' }), '', 4);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          return callback(null, list[0]!.address, list[0]!.family);
        });
      },
    },
  });
  let url = startUrl;
  try {
    for (let hop = 0; ; hop++) {
      const parsed = new URL(url);
      const host = parsed.hostname.replace(/^\[|\]$/g, '');
      if (ipaddr.isValid(host) && denied(host, deny)) return { ok: false, url, error: `${host} is in a denied network` };
      const res = await request(url, {
        dispatcher: agent,
        method: 'GET',
        headers: { 'user-agent': 'Rampart-Verification/1', accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' },
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump();
        const next = new URL(location, url);
        if (hop >= o.maxRedirects) return { ok: false, url, error: `more than ${o.maxRedirects} redirects` };
        if (next.hostname !== parsed.hostname || !['http:', 'https:'].includes(next.protocol)) {
          return { ok: false, url, error: `redirected to another host (${next.protocol}//${next.host}); only redirects on the same host are followed` };
        }
        url = next.href;
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > o.maxBodyBytes) {
          chunks.push(chunk.subarray(0, chunk.length - (size - o.maxBodyBytes)));
          res.body.destroy();
          break;
        }
        chunks.push(chunk);
      }
      const contentType = String(res.headers['content-type'] ?? '');
      return { ok: true, url, status: res.statusCode, contentType, body: Buffer.concat(chunks).toString('utf8') };
    }
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
    return { ok: false, url, error: e.cause?.message ?? e.message ?? String(e.code) };
  } finally {
    await agent.close().catch(() => undefined);
  }
}
