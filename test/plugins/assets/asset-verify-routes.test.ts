import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { startDnsTestServer, type DnsTestServer } from '../../_helpers/targets/dns-test-server.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let dns: DnsTestServer;
const servers: Server[] = [];

test.before(async () => {
  dns = await startDnsTestServer();
  t0 = await createTestApp({ verification: { resolvers: [dns.address], timeoutMs: 10000 } });
});
test.after.always(async () => {
  await t0?.close();
  await dns?.close();
  for (const s of servers) s.close();
});

type Page = { status?: number; body: string; type?: string; location?: string };

/** A loopback web server answering from `pages` (path -> response); 404 otherwise. */
async function webServer(pages: Map<string, Page>): Promise<string> {
  const server = createServer((req, res) => {
    const page = pages.get(req.url ?? '/');
    if (!page) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html', ...(page.location ? { location: page.location } : {}) }).end(page.body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function asset(token: string, name: string, type: string): Promise<string> {
  const res = await t0.request('POST', '/api/assets', { token, payload: { name, type } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data.id;
}

const check = (token: string, id: string, method?: string) => t0.request('POST', `/api/assets/${id}/verify/check`, { token, payload: method ? { method } : undefined });

test('DNS TXT: issue, fail with what was found, succeed, asset.verified once', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const id = await asset(token, 'Verify-Me.test', 'domain');
  const issued = await t0.request('POST', `/api/assets/${id}/verify`, { token });
  t.is(issued.statusCode, 200);
  const v = issued.body.data;
  t.is(v.verification_method, 'dns_txt');
  t.regex(v.verification_token, /^rv-[0-9a-f]{40}$/);
  t.true(v.instructions.includes(`rampart-verification=${v.verification_token}`));
  t.true(v.instructions.includes('verify-me.test'));
  t.deepEqual(v.methods.map((m: { method: string }) => m.method), ['dns_txt', 'meta_tag', 'file']);
  t.is((await t0.request('POST', `/api/assets/${id}/verify`, { token, payload: { method: 'file' } })).body.data.verification_token, v.verification_token, 'token is stable');

  const missing = await check(token, id, 'dns_txt');
  t.is(missing.statusCode, 200);
  t.like(missing.body.data, { verified: false, code: 'record_not_found', status: 'pending_verification', checked: 'verify-me.test', found: [] });

  dns.txt.set('verify-me.test', [['v=spf1 -all'], ['rampart-verification=rv-wrong']]);
  const wrong = await check(token, id, 'dns_txt');
  t.like(wrong.body.data, { verified: false, code: 'token_mismatch' });
  t.deepEqual(wrong.body.data.found.sort(), ['rampart-verification=rv-wrong', 'v=spf1 -all']);

  // A long value split into two character-strings is joined, as resolvers do.
  const value = `rampart-verification=${v.verification_token}`;
  dns.txt.set('verify-me.test', [['v=spf1 -all'], [value.slice(0, 30), value.slice(30)]]);
  const ok = await check(token, id, 'dns_txt');
  t.like(ok.body.data, { verified: true, code: null, status: 'active', method: 'dns_txt' });
  const got = (await t0.request('GET', `/api/assets/${id}`, { token })).body.data;
  t.true(got.verified);
  t.is(got.status, 'active');
  t.like((await check(token, id, 'dns_txt')).body.data, { verified: true, status: 'active' });
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'asset.verified' });
  t.is(events.length, 1);
  t.deepEqual(JSON.parse(events[0].data), { asset_id: id, name: 'verify-me.test', type: 'domain', method: 'dns_txt' });
  // Verified assets may now be moved between active and inactive.
  t.is((await t0.request('PUT', `/api/assets/${id}`, { token, payload: { status: 'inactive' } })).body.data.status, 'inactive');
  t.is((await t0.request('PUT', `/api/assets/${id}`, { token, payload: { status: 'active' } })).body.data.status, 'active');
});

test('HTML meta tag on a URL asset', async (t) => {
  const { token } = await t0.tenant();
  const pages = new Map<string, Page>();
  const origin = await webServer(pages);
  const id = await asset(token, `${origin}/app/`, 'url');
  const v = (await t0.request('POST', `/api/assets/${id}/verify`, { token })).body.data;
  t.is(v.verification_method, 'meta_tag');
  t.true(v.instructions.includes(`${origin}/app/`));

  const notFound = await check(token, id);
  t.like(notFound.body.data, { verified: false, code: 'http_error', found: ['HTTP 404'], checked: `${origin}/app/` });
  pages.set('/app/', { body: '<html><head><title>x</title></head><body>hello</body></html>' });
  t.like((await check(token, id)).body.data, { verified: false, code: 'record_not_found', found: [] });
  pages.set('/app/', { body: '<html><head><meta name="rampart-verification" content="rv-someone-else"></head></html>' });
  t.like((await check(token, id)).body.data, { verified: false, code: 'token_mismatch', found: ['rv-someone-else'] });
  pages.set('/app/', { body: `<html><head><meta name="rampart-verification" content="${v.verification_token}"></head></html>` });
  t.like((await check(token, id)).body.data, { verified: true, status: 'active', method: 'meta_tag' });
});

test('file at the well-known path, redirects on the same host only', async (t) => {
  const { token } = await t0.tenant();
  const pages = new Map<string, Page>();
  const origin = await webServer(pages);
  const id = await asset(token, `${origin}/`, 'url');
  const v = (await t0.request('POST', `/api/assets/${id}/verify`, { token, payload: { method: 'file' } })).body.data;
  t.is(v.verification_method, 'file');
  const file = '/.well-known/rampart-verification.txt';
  t.true(v.instructions.includes(`${origin}${file}`));

  t.like((await check(token, id)).body.data, { verified: false, code: 'http_error', found: ['HTTP 404'] }, 'defaults to the method of the last /verify');
  pages.set(file, { body: 'rv-0000', type: 'text/plain' });
  t.like((await check(token, id)).body.data, { verified: false, code: 'token_mismatch', found: ['rv-0000'] });
  pages.set(file, { body: '<html><body>Internal dashboard: secret numbers 42</body></html>' });
  const html = (await check(token, id)).body.data;
  t.is(html.code, 'token_mismatch');
  t.false(JSON.stringify(html.found).includes('secret'), 'arbitrary content is described, not echoed');
  pages.set(file, { status: 302, body: '', location: 'http://127.0.0.9/elsewhere' });
  const crossHost = (await check(token, id)).body.data;
  t.like(crossHost, { verified: false, code: 'unreachable' });
  t.regex(crossHost.message, /another host/);
  pages.set(file, { status: 301, body: '', location: '/moved.txt' });
  pages.set('/moved.txt', { body: `${v.verification_token}\n`, type: 'text/plain' });
  t.like((await check(token, id)).body.data, { verified: true, status: 'active', method: 'file', checked: `${origin}/moved.txt` });
});

test('unreachable hosts and denied networks fail cleanly', async (t) => {
  const { token } = await t0.tenant();
  const closed = await webServer(new Map());
  servers.pop()!.close();
  const id = await asset(token, `${closed}/`, 'url');
  await t0.request('POST', `/api/assets/${id}/verify`, { token });
  t.like((await check(token, id)).body.data, { verified: false, code: 'unreachable', status: 'pending_verification' });
  const metadata = await asset(token, 'http://169.254.169.254/latest/', 'url');
  await t0.request('POST', `/api/assets/${metadata}/verify`, { token });
  const denied = (await check(token, metadata)).body.data;
  t.is(denied.code, 'destination_refused');
  t.regex(denied.message, /denied network/);
});

test('verification errors: not issued, not supported, not applicable, bad input, isolation, scope', async (t) => {
  const { token } = await t0.tenant();
  const domain = await asset(token, 'pending.test', 'domain');
  const notIssued = await check(token, domain);
  t.is(notIssued.statusCode, 409);
  t.is(notIssued.body.error.code, 'verification_not_issued');
  const net = await asset(token, '192.0.2.0/24', 'network');
  const unsupported = await t0.request('POST', `/api/assets/${net}/verify`, { token });
  t.is(unsupported.statusCode, 400);
  t.is(unsupported.body.error.code, 'verification_not_supported');
  const ip = await asset(token, '192.0.2.44', 'ip');
  const ipPlan = await t0.request('POST', `/api/assets/${ip}/verify`, { token });
  t.is(ipPlan.body.data.verification_method, 'file');
  t.true(ipPlan.body.data.instructions.includes('http://192.0.2.44/.well-known/rampart-verification.txt'));
  const na = await t0.request('POST', `/api/assets/${ip}/verify`, { token, payload: { method: 'dns_txt' } });
  t.is(na.statusCode, 400);
  t.is(na.body.error.code, 'method_not_applicable');
  t.is((await t0.request('POST', `/api/assets/${domain}/verify`, { token, payload: { method: 'email' } })).statusCode, 400);
  t.is((await check(token, domain, 'carrier-pigeon')).statusCode, 400);
  const other = await t0.tenant();
  t.is((await t0.request('POST', `/api/assets/${domain}/verify`, { token: other.token })).statusCode, 404);
  t.is((await check(other.token, domain)).statusCode, 404);
  const reader = await t0.tenant({ scopes: ['assets:read'] });
  t.is((await t0.request('POST', `/api/assets/${domain}/verify`, { token: reader.token })).statusCode, 403);
  const after = (await t0.request('GET', `/api/assets/${domain}`, { token })).body.data;
  t.false(after.verified);
  t.is(after.status, 'pending_verification');
});
