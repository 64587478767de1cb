import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { createAsset, waitForScan } from '../_helpers/harness/scan-helpers.ts';
import { startHttpTarget, type HttpTarget } from '../_helpers/targets/http-target.ts';
import { badSite } from '../_helpers/targets/web-sites.ts';
import { startDnsServer, type TestDnsServer } from '../_helpers/targets/dns-server.ts';
import { startTlsTarget, type TlsTarget } from '../_helpers/targets/tls-target.ts';
import { createRsaTestCa } from '../_helpers/certificates/weak-certs.ts';

let t0: TestApp;
let site: HttpTarget;
let dns: TestDnsServer;
let tlsSite: TlsTarget;

test.before(async () => {
  site = await startHttpTarget(badSite);
  // The same site over HTTPS, with two TLS defects built in: TLS 1.0/1.1 still accepted and a
  // certificate (from a CA the scanner is told to trust) that expires in 10 days.
  const ca = await createRsaTestCa();
  const leaf = await ca.issue({ ips: ['127.0.0.1'], notAfter: new Date(Date.now() + 10 * 86_400_000) });
  tlsSite = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, minVersion: 'TLSv1' }, badSite);
  dns = await startDnsServer([
    {
      name: 'mail-only.test',
      signed: true,
      records: [
        { type: 'A', name: 'mail-only.test', ttl: 60, data: '127.0.0.1' },
        { type: 'TXT', name: 'mail-only.test', ttl: 60, data: 'v=spf1 ?all' },
        { type: 'TXT', name: '_dmarc.mail-only.test', ttl: 60, data: 'v=DMARC1; p=reject' },
        { type: 'CAA', name: 'mail-only.test', ttl: 60, data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
      ],
    },
  ]);
  // Every built-in scanner, the real engine and worker pool. A generous lease: 25 checks on a
  // busy 2-core CI box must not look like a lost worker.
  t0 = await createTestApp({ scans: { worker: { leaseMs: 30_000, heartbeatMs: 500 } }, plugins: { builtinOptions: { ssl: { extra_ca_pem: ca.certPem } } } });
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => {
  await t0?.close();
  await site?.close();
  await tlsSite?.close();
  await dns?.close();
});

/** What the bad test site exposes over HTTP and HTTPS alike (web_app findings). */
const WEB_PROBLEMS = [
  'CORS reflects arbitrary origins with credentials (Origin: https://rampart-cors-probe.invalid)',
  'Cookie without protective attributes: sid',
  'Directory listing at /files/',
  'HTTP TRACE method enabled',
  'Missing security header: Content-Security-Policy',
  'Missing security header: X-Frame-Options (or CSP frame-ancestors)',
  'Missing security header: X-Content-Type-Options: nosniff',
  'Missing security header: Referrer-Policy',
  'Open redirect via next on /login',
  'Version disclosed: Apache/2.4.41 (Ubuntu), PHP/7.4.3',
];

test('a full scan of a URL asset finds what the test site was built to expose, and nothing else', async (t) => {
  const assetId = await createAsset(t0, `${site.url}/`, 'url');
  // Only the site's own port is port-scanned: other loopback listeners (the database) are not the site.
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'full', options: { ports: String(site.port), max_depth: 3 } } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 90_000);
  const checks = await t0.ctx.db('scan_checks').where({ scan_id: scan.scan_id });
  t.is(scan.status, 'completed', JSON.stringify({ scan, checks }));
  const byId = Object.fromEntries(checks.map((c: { check_id: string; status: string; error: string | null }) => [c.check_id, c]));
  // full runs every check for a URL asset (no dns: domain only), and none failed.
  t.truthy(byId['ssl:protocol-versions'] && byId['web_app:cors'] && byId['api_discovery:openapi'] && byId['port:tcp-services']);
  t.falsy(Object.keys(byId).find((id) => id.startsWith('dns:') || id.startsWith('network:')));
  t.deepEqual(checks.filter((c: { status: string }) => c.status !== 'completed').map((c: { check_id: string; error: string }) => `${c.check_id}: ${c.error}`), []);

  t.log(checks.map((c: { check_id: string; duration_ms: number }) => `${c.check_id} ${c.duration_ms}`).join('\n'));
  const results = await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`);
  const found = (results.body.data as Array<{ title: string; severity: string }>).map((f) => f.title).sort();
  // Over plain HTTP the session cookie itself travels in clear.
  t.deepEqual(found, [...WEB_PROBLEMS, 'Session cookie sent over plain HTTP: sid', `Open port ${site.port}/tcp (http)`].sort());
});

test('a full scan of an HTTPS URL asset adds exactly the TLS problems the server was built with', async (t) => {
  const assetId = await createAsset(t0, `${tlsSite.url}/`, 'url');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'full', options: { ports: String(tlsSite.port), max_depth: 3 } } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 120_000);
  const checks = await t0.ctx.db('scan_checks').where({ scan_id: scan.scan_id });
  t.is(scan.status, 'completed', JSON.stringify({ scan, checks }));
  t.deepEqual(checks.filter((c: { status: string }) => c.status !== 'completed').map((c: { check_id: string; error: string }) => `${c.check_id}: ${c.error}`), []);
  const results = await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`);
  const found = (results.body.data as Array<{ title: string }>).map((f) => f.title).sort();
  t.deepEqual(found, [
    ...WEB_PROBLEMS,
    `Open port ${tlsSite.port}/tcp (https)`,
    // the page loads a script over http://: harmless over HTTP, active mixed content over HTTPS
    'Active mixed content on /',
    // the TLS defects built in, and HTTPS without HSTS
    'Deprecated TLS versions offered: TLSv1, TLSv1.1',
    'CBC cipher suite negotiated with TLS 1.0',
    'TLS certificate expires in 9 days',
    'Missing HTTP Strict-Transport-Security header',
    // informational: what the key exchange was
    'TLS key exchange: X25519',
  ].sort());
});

test('a full scan of a URL asset covers its origin only by default; include_host adds the rest of the host', async (t) => {
  // Another service on the same host: part of the host, not of the URL's origin.
  const neighbour = await startHttpTarget(badSite);
  t.teardown(() => neighbour.close());
  // The same origin as the first test's asset, under another path (asset names are unique).
  const assetId = await createAsset(t0, `${site.url}/files/`, 'url');
  const scanOf = async (options: Record<string, unknown>) => {
    const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'full', options: { max_depth: 1, ...options } } });
    t.is(res.statusCode, 201, res.raw);
    const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 90_000);
    t.is(scan.status, 'completed', JSON.stringify(scan.check_results));
    const results = (await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`)).body;
    return { scan, results, ports: (results.data as Array<{ title: string }>).map((f) => f.title).filter((x) => x.startsWith('Open port')).sort() };
  };
  const origin = await scanOf({});
  t.is(origin.scan.options.include_host, false, 'the default is stored with the scan');
  t.deepEqual(origin.scan.scope, { mode: 'origin', origin: site.url, host: '127.0.0.1', ports: [site.port] });
  t.deepEqual(origin.results.scope, origin.scan.scope);
  t.deepEqual(origin.ports, [`Open port ${site.port}/tcp (http)`], 'nothing but the URL\'s own port');
  const host = await scanOf({ include_host: true, ports: `${site.port},${neighbour.port}` });
  t.deepEqual(host.scan.scope, { mode: 'host', origin: site.url, host: '127.0.0.1', ports: null });
  t.deepEqual(host.ports, [`Open port ${site.port}/tcp (http)`, `Open port ${neighbour.port}/tcp (http)`].sort());
  // A ports option naming other ports in an origin-only scan would be ignored: it is refused.
  const refused = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'full', options: { ports: `${neighbour.port}` } } });
  t.is(refused.statusCode, 400);
  t.is(refused.body.error.details[0].field, 'options.ports');
  t.regex(refused.body.error.details[0].message, /include_host/);
});

test('a dns scan of a domain asset asks the resolvers given in the scan options', async (t) => {
  const assetId = await createAsset(t0, 'mail-only.test', 'domain');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'dns', options: { resolvers: [dns.address] } } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 60_000);
  t.is(scan.status, 'completed', JSON.stringify(scan));
  const results = await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`);
  // The zone has one problem (?all); it is signed, has DMARC and CAA, and no NS (no AXFR tried).
  t.deepEqual((results.body.data as Array<{ title: string }>).map((f) => f.title), ['Weak SPF record: `?all` (neutral) gives receivers no policy']);
  t.true(dns.queries.some((q) => q.name === '_dmarc.mail-only.test'));
  t.is((await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'dns', options: { resolvers: ['not-an-ip'] } } })).statusCode, 400);
});
