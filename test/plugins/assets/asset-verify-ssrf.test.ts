import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Two apps: `prod` runs the production address policy (nothing private allow-listed),
// `lab` allow-lists loopback as config/test.json does, so the probe's own rules show.
let prod: TestApp;
let lab: TestApp;
const servers: Server[] = [];

test.before(async () => {
  prod = await createTestApp({ outbound: { allowPrivateCidrs: [] } });
  lab = await createTestApp();
});
test.after.always(async () => {
  await prod?.close();
  await lab?.close();
  for (const s of servers) s.close();
});

type Page = { status?: number; body: string; type?: string; location?: string };

/** A loopback web server answering from `pages`; it counts every request it gets. */
async function webServer(pages: Map<string, Page>): Promise<{ origin: string; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    const page = pages.get(req.url ?? '/');
    if (!page) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html', ...(page.location ? { location: page.location } : {}) }).end(page.body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, port, hits };
}

async function issued(app: TestApp, token: string, name: string, type: string, method?: string): Promise<{ id: string; value: string }> {
  const res = await app.request('POST', '/api/assets', { token, payload: { name, type } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  const id = res.body.data.id as string;
  const v = await app.request('POST', `/api/assets/${id}/verify`, { token, payload: method ? { method } : undefined });
  return { id, value: v.body.data.verification_token as string };
}

const check = (app: TestApp, token: string, id: string, method?: string) =>
  app.request('POST', `/api/assets/${id}/verify/check`, { token, payload: method ? { method } : undefined });

const FILE = '/.well-known/rampart-verification.txt';

test('production policy: a loopback URL is refused before any request, with a clear reason, and never becomes verified', async (t) => {
  const { token } = await prod.tenant();
  const pages = new Map<string, Page>();
  const site = await webServer(pages);
  for (const name of [`${site.origin}/`, `http://[::127.0.0.1]:${site.port}/`, `http://[::ffff:127.0.0.1]:${site.port}/`, `http://[64:ff9b::127.0.0.1]:${site.port}/`]) {
    const { id, value } = await issued(prod, token, name, 'url');
    pages.set('/', { body: `<html><head><meta name="rampart-verification" content="${value}"></head></html>` });
    pages.set(FILE, { body: value, type: 'text/plain' });
    for (const method of ['meta_tag', 'file']) {
      const res = await check(prod, token, id, method);
      t.is(res.statusCode, 200, name);
      t.like(res.body.data, { verified: false, code: 'destination_refused', status: 'pending_verification', found: [] }, `${name} ${method}`);
      t.regex(res.body.data.message, /not allowed/, name);
      t.regex(res.body.data.message, /loopback/, name);
    }
    t.false((await prod.request('GET', `/api/assets/${id}`, { token })).body.data.verified, name);
  }
  t.deepEqual(site.hits, [], 'the loopback server never saw a request');
});

test('production policy: private and link-local IP assets are refused too', async (t) => {
  const { token } = await prod.tenant();
  for (const name of ['127.0.0.1', '10.0.0.7', '169.254.169.254', '::1']) {
    const { id } = await issued(prod, token, name, 'ip');
    const res = (await check(prod, token, id)).body.data;
    t.like(res, { verified: false, code: 'destination_refused', found: [] }, name);
  }
});

test('a redirect to another port of the same host is not followed', async (t) => {
  const { token } = await lab.tenant();
  const outerPages = new Map<string, Page>();
  const outer = await webServer(outerPages);
  const { id, value } = await issued(lab, token, `${outer.origin}/`, 'url', 'file');
  const innerPages = new Map<string, Page>([[FILE, { body: value, type: 'text/plain' }]]);
  const target = await webServer(innerPages);
  outerPages.set(FILE, { status: 302, body: '', location: `http://127.0.0.1:${target.port}${FILE}` });
  const res = (await check(lab, token, id)).body.data;
  t.like(res, { verified: false, code: 'unreachable', found: [] });
  t.regex(res.message, /another host or port/);
  t.false(res.message.includes(String(target.port)), 'the redirect target is not echoed');
  t.deepEqual(target.hits, [], 'the other port never saw a request');
  // The same origin, on another scheme, is also another port.
  outerPages.set(FILE, { status: 301, body: '', location: `https://127.0.0.1:${outer.port}${FILE}` });
  t.like((await check(lab, token, id)).body.data, { verified: false, code: 'unreachable' });
});

test('a page that is not the token is described, never echoed (content, type, length, meta content, first line)', async (t) => {
  const { token } = await lab.tenant();
  const pages = new Map<string, Page>();
  const site = await webServer(pages);
  const meta = await issued(lab, token, `${site.origin}/admin`, 'url', 'meta_tag');
  pages.set('/admin', { body: '<html><head><meta name="rampart-verification" content="db_password=hunter2"></head><body>internal</body></html>', type: 'text/x-internal-dashboard' });
  const m = (await check(lab, token, meta.id)).body;
  t.like(m.data, { verified: false, code: 'token_mismatch', found: [] });
  for (const leak of ['hunter2', 'x-internal-dashboard', 'internal</body>', 'bytes']) t.false(JSON.stringify(m).includes(leak), leak);

  const file = await issued(lab, token, `${site.origin}/`, 'url', 'file');
  pages.set(FILE, { body: 'api_key=AKIA1234SECRET\nsecond line', type: 'application/x-secret' });
  const f = (await check(lab, token, file.id)).body;
  t.like(f.data, { verified: false, code: 'token_mismatch', found: [] });
  t.regex(f.data.message, /did not contain the token/);
  for (const leak of ['AKIA1234SECRET', 'api_key', 'x-secret', 'bytes']) t.false(JSON.stringify(f).includes(leak), leak);
  // A value shaped like a verification token is still shown: it helps an owner who published the wrong one.
  pages.set(FILE, { body: 'rv-0123abcd', type: 'text/plain' });
  t.like((await check(lab, token, file.id)).body.data, { code: 'token_mismatch', found: ['rv-0123abcd'] });
});

test('with loopback allow-listed, the meta tag and the file (after a same-origin redirect) still verify', async (t) => {
  const { token } = await lab.tenant();
  const pages = new Map<string, Page>();
  const site = await webServer(pages);
  const meta = await issued(lab, token, `${site.origin}/home`, 'url', 'meta_tag');
  pages.set('/home', { body: `<html><head><meta name="rampart-verification" content="${meta.value}"></head></html>` });
  t.like((await check(lab, token, meta.id)).body.data, { verified: true, status: 'active', method: 'meta_tag' });
  const file = await issued(lab, token, `${site.origin}/`, 'url', 'file');
  pages.set(FILE, { status: 302, body: '', location: '/v.txt' });
  pages.set('/v.txt', { body: `${file.value}\n`, type: 'text/plain' });
  t.like((await check(lab, token, file.id)).body.data, { verified: true, status: 'active', method: 'file' });
});
