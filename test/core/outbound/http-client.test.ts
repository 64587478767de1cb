import test from 'ava';
import type { LookupAddress } from 'node:dns';
import { AddressPolicy } from '../../../core/outbound/address-policy.ts';
import { OutboundHttpClient, type OutboundClientOptions } from '../../../core/outbound/http-client.ts';
import type { LookupFn } from '../../../core/outbound/guarded-lookup.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';

let receiver: HttpsReceiver;
let base: OutboundClientOptions;
const clients: OutboundHttpClient[] = [];

function client(overrides: Partial<OutboundClientOptions> = {}): OutboundHttpClient {
  const c = new OutboundHttpClient({ ...base, ...overrides });
  clients.push(c);
  return c;
}

/** A resolver answering from a table (and counting calls), standing in for DNS. */
function fakeDns(table: Record<string, string[]>): LookupFn & { calls: number } {
  const fn = ((hostname: string, _options: unknown, callback: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    fn.calls += 1;
    const list = table[hostname];
    if (!list) return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    callback(null, list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as unknown as LookupFn & { calls: number };
  fn.calls = 0;
  return fn;
}

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  receiver = await startHttpsReceiver();
  base = {
    requireHttps: true, allowPrivateCidrs: ['127.0.0.0/8', '::1/128'], caCerts: [ca.certPem], connectTimeoutMs: 2000,
    defaultTimeoutMs: 5000, maxConnectionsPerOrigin: 4, maxResponseBytes: 1024, userAgent: 'rampart-test',
  };
});

test.after.always(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await receiver.close();
});

test('AddressPolicy refuses every non-public range unless allow-listed', (t) => {
  const policy = new AddressPolicy();
  for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '2002:7f00:1::1', '64:ff9b::a00:1']) {
    t.truthy(policy.refusal(ip), ip);
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) t.is(policy.refusal(ip), null, ip);
  const allowing = new AddressPolicy(['127.0.0.0/8', '::1/128', '10.20.0.0/16']);
  t.is(allowing.refusal('127.0.0.53'), null);
  t.is(allowing.refusal('::ffff:127.0.0.1'), null);
  t.is(allowing.refusal('::1'), null);
  t.is(allowing.refusal('10.20.3.4'), null);
  t.is(allowing.refusal('10.21.0.1'), 'private');
  t.is(allowing.refusal('169.254.169.254'), 'linkLocal');
});

test('POSTs over HTTPS through the pool and returns status, body and duration', async (t) => {
  const own = await startHttpsReceiver();
  t.teardown(() => own.close());
  own.respond(() => ({ status: 202, body: 'accepted' }));
  const res = await client().request({ url: `${own.origin}/in`, headers: { 'x-a': '1' }, body: '{"x":1}' });
  t.is(res.statusCode, 202);
  t.is(res.body, 'accepted');
  t.false(res.truncated);
  t.true(res.durationMs >= 0);
  const got = own.requests.find((r) => r.path === '/in')!;
  t.is(got.body, '{"x":1}');
  t.is(got.headers['x-a'], '1');
  t.is(got.headers['user-agent'], 'rampart-test');
});

test('refuses loopback, link-local and private destinations when not allow-listed, before sending anything', async (t) => {
  const strict = client({ allowPrivateCidrs: [] });
  const before = receiver.requests.length;
  for (const url of [`${receiver.origin}/`, `https://localhost:${receiver.port}/`, `https://[::ffff:127.0.0.1]:${receiver.port}/`, 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/', 'https://[fe80::1]/', 'https://0.0.0.0/']) {
    const err = await t.throwsAsync(strict.request({ url }), undefined, url);
    t.is((err as { code?: string }).code, 'destination_refused', url);
    const check = await t.throwsAsync(strict.checkUrl(url));
    t.is((check as { code?: string }).code, 'destination_refused', url);
  }
  t.is(receiver.requests.length, before);
});

test('DNS rebinding: a name that was public at registration and private at connect time is refused', async (t) => {
  const answers: Record<string, string[]> = { 'hooks.example.test': ['93.184.216.34'] };
  const dns = fakeDns(answers);
  const strict = client({ allowPrivateCidrs: [], resolve: dns });
  const url = `https://hooks.example.test:${receiver.port}/x`;
  await t.notThrowsAsync(strict.checkUrl(url));
  answers['hooks.example.test'] = ['127.0.0.1'];
  const err = await t.throwsAsync(strict.request({ url }));
  t.is((err as { code?: string }).code, 'destination_refused');
  t.true(dns.calls >= 2, 'the connection resolved the name again');
  answers['hooks.example.test'] = ['93.184.216.34', '10.0.0.5'];
  t.is(((await t.throwsAsync(strict.checkUrl(url))) as { code?: string }).code, 'destination_refused', 'one private address in the answer is enough to refuse');
});

test('https is required unless configured otherwise; credentials in URLs are refused', async (t) => {
  t.is(((await t.throwsAsync(client().request({ url: `http://127.0.0.1:${receiver.port}/` }))) as { code?: string }).code, 'https_required');
  t.is(((await t.throwsAsync(client().checkUrl('https://user:pw@example.com/'))) as { code?: string }).code, 'invalid_url');
  t.is(((await t.throwsAsync(client().checkUrl('ftp://example.com/'))) as { code?: string }).code, 'invalid_url');
  t.is(((await t.throwsAsync(client().checkUrl('not a url'))) as { code?: string }).code, 'invalid_url');
  await t.notThrowsAsync(client({ requireHttps: false }).checkUrl(`http://127.0.0.1:${receiver.port}/`));
});

test('an untrusted certificate fails as tls_failed', async (t) => {
  const untrusting = client({ caCerts: [] });
  const failed = (await t.throwsAsync(untrusting.request({ url: `${receiver.origin}/` }))) as { code?: string; message: string };
  t.is(failed.code, 'tls_failed');
  t.regex(failed.message, /^TLS handshake with 127\.0\.0\.1:\d+ failed: .+ \([A-Z_]+\)\.$/);
});

test('a slow endpoint times out; a long body is truncated; redirects are not followed', async (t) => {
  const slow = await startHttpsReceiver();
  try {
    slow.respond((req) => (req.path === '/slow' ? { status: 200, delayMs: 3000 } : req.path === '/big' ? { status: 200, body: 'y'.repeat(5000) } : { status: 302, body: '' }));
    const late = (await t.throwsAsync(client().request({ url: `${slow.origin}/slow`, timeoutMs: 300 }))) as { code?: string; message: string };
    t.is(late.code, 'timeout');
    t.is(late.message, `No complete answer from 127.0.0.1:${slow.port} within 0.3 s.`);
    const big = await client().request({ url: `${slow.origin}/big`, maxResponseBytes: 10 });
    t.is(big.body, 'y'.repeat(10));
    t.true(big.truncated);
    const redirect = await client().request({ url: `${slow.origin}/moved` });
    t.is(redirect.statusCode, 302);
    t.is(slow.requests.filter((r) => r.path === '/moved').length, 1);
  } finally {
    await slow.close();
  }
});

test('an unreachable port fails as connect_failed and a caller abort as aborted', async (t) => {
  const closed = await startHttpsReceiver();
  const port = closed.port;
  await closed.close();
  const refused = (await t.throwsAsync(client().request({ url: `https://127.0.0.1:${port}/path-not-in-message` }))) as { code?: string; message: string };
  t.is(refused.code, 'connect_failed');
  t.is(refused.message, `Connection to 127.0.0.1:${port} refused (ECONNREFUSED): nothing accepts connections there.`);
  const controller = new AbortController();
  const slow = await startHttpsReceiver();
  t.teardown(() => slow.close());
  slow.respond(() => ({ status: 200, delayMs: 2000 }));
  const pending = client().request({ url: `${slow.origin}/abort`, signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  t.is(((await t.throwsAsync(pending)) as { code?: string }).code, 'aborted');
});
