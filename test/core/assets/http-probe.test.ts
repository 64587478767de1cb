import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { httpProbe, type HttpProbeOptions } from '../../../core/assets/http-probe.ts';
import type { LookupFn } from '../../../core/outbound/guarded-lookup.ts';

let server: Server;
let port: number;
const hits: string[] = [];

test.before(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('rv-token');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
test.after.always(() => server.close());

/** Stands in for DNS: every name answers the addresses in `table`. */
function dns(table: Record<string, string[]>): LookupFn {
  return ((host: string, _o: unknown, cb: (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    const list = table[host];
    if (!list) return cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    cb(null, list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as unknown as LookupFn;
}

const options = (allow: string[], resolve: LookupFn): HttpProbeOptions => ({
  timeoutMs: 2000, maxBodyBytes: 1024, maxRedirects: 2, denyNetworks: ['169.254.0.0/16'], outbound: { allowPrivateCidrs: allow, caCerts: [] }, resolve,
});

test('a name that resolves to loopback is refused at connect time under the production policy', async (t) => {
  const resolve = dns({ 'intranet.example.test': ['127.0.0.1'], 'compat.example.test': ['::7f00:1'] });
  const before = hits.length;
  for (const host of ['intranet.example.test', 'compat.example.test']) {
    const res = await httpProbe(`http://${host}:${port}/`, options([], resolve));
    t.like(res, { ok: false, code: 'destination_refused' }, host);
  }
  t.is(hits.length, before, 'nothing was sent');
});

test('the same name is fetched when its range is allow-listed, but never a denyNetworks address', async (t) => {
  const resolve = dns({ 'intranet.example.test': ['127.0.0.1'], 'metadata.example.test': ['169.254.169.254'] });
  t.like(await httpProbe(`http://intranet.example.test:${port}/x`, options(['127.0.0.0/8'], resolve)), { ok: true, status: 200, body: 'rv-token' });
  t.like(await httpProbe('http://metadata.example.test/', options(['169.254.0.0/16'], resolve)), { ok: false, code: 'destination_refused' });
});
