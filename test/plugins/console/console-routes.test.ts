import test from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';

// How /console is served: the page, its policy headers, ETags, and nothing but the allow-listed files.

let app: TestApp;
test.before(async () => {
  // Real (small) limits: the console's files must load even when the address's budget is spent.
  app = await createTestApp({ rateLimit: { ...DEFAULT_RATE_LIMITS, anonymous: { perMinute: 2, burst: 2 } } });
});
test.after.always(() => app?.close());

const get = (url: string, headers: Record<string, string> = {}) => app.request('GET', url, { token: null, headers });

test('the page: strict CSP whose only inline allowance is the import map, frame ban, ETag', async (t) => {
  const res = await get('/console');
  t.is(res.statusCode, 200);
  t.regex(String(res.headers['content-type']), /^text\/html/);
  t.is(res.headers['x-frame-options'], 'DENY');
  t.is(res.headers['x-content-type-options'], 'nosniff');
  const csp = String(res.headers['content-security-policy']);
  t.regex(csp, /default-src 'none'/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.regex(csp, /style-src 'self'(;|$)/);
  t.notRegex(csp, /unsafe-inline|unsafe-eval|https?:|\*/);
  const map = /<script type="importmap">(.*?)<\/script>/s.exec(res.raw)![1]!;
  const hash = createHash('sha256').update(map).digest('base64');
  t.true(csp.includes(`script-src 'self' 'sha256-${hash}'`));
  t.deepEqual(Object.keys(JSON.parse(map).imports).sort(), ['htm', 'preact', 'preact/hooks', 'uplot']);
  for (const url of Object.values(JSON.parse(map).imports) as string[]) t.regex(url, /^\/console\/vendor\//);
  // Nothing inline but the import map: no inline handlers, styles or scripts.
  t.notRegex(res.raw, /\sstyle=|\son[a-z]+=/i);
  t.is((res.raw.match(/<script/g) ?? []).length, 2);

  const etag = String(res.headers.etag);
  t.truthy(etag);
  const again = await get('/console', { 'if-none-match': etag });
  t.is(again.statusCode, 304);
  t.is(again.headers['content-security-policy'], csp);
});

test('vendor files: only the allow-list, with ETags; node_modules is never browsable', async (t) => {
  const res = await get('/console/vendor/preact.mjs');
  t.is(res.statusCode, 200);
  t.regex(String(res.headers['content-type']), /javascript/);
  t.is(res.raw, readFileSync(new URL('../../../node_modules/preact/dist/preact.mjs', import.meta.url), 'utf8'));
  t.truthy(res.headers.etag);
  t.is(res.headers['cache-control'], 'no-cache');
  t.is((await get('/console/vendor/preact.mjs', { 'if-none-match': String(res.headers.etag) })).statusCode, 304);
  t.regex(String((await get('/console/vendor/uplot.css')).headers['content-type']), /text\/css/);

  for (const url of ['/console/vendor/package.json', '/console/vendor/..%2Fpackage.json', '/console/vendor/axe.min.js', '/node_modules/preact/dist/preact.mjs', '/console/node_modules/preact/package.json']) {
    const refused = await get(url);
    t.true([400, 404].includes(refused.statusCode), `${url} answered ${refused.statusCode}`);
    t.is(refused.body?.status, 'error', url);
  }
});

test('console files: modules and styles only, confined to console/', async (t) => {
  const main = await get('/console/app/main.js');
  t.is(main.statusCode, 200);
  t.regex(String(main.headers['content-type']), /javascript/);
  t.truthy(main.headers.etag);
  t.is(main.headers['x-frame-options'], 'DENY');
  t.is((await get('/console/styles/console.css')).statusCode, 200);
  for (const url of ['/console/tsconfig.json', '/console/../package.json', '/console/app/%2e%2e/%2e%2e/package.json', '/console/app/missing.js', '/console/App/Main.js']) {
    const refused = await get(url);
    t.true([400, 404].includes(refused.statusCode), `${url} answered ${refused.statusCode}`);
    // `/console/../x` is `/x` once normalised: not a console response any more.
    if (!/\.\.|%2e/i.test(url)) t.is(refused.headers['x-frame-options'], 'DENY', url);
  }
  t.is((await get('/console/')).statusCode, 302);
});

test('the files are not charged to the client address: a first load never meets a 429', async (t) => {
  for (let i = 0; i < 10; i++) t.is((await get('/console/app/main.js')).statusCode, 200);
  // The API itself still is.
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await get('/api/user/me')).statusCode);
  t.true(statuses.includes(429));
});
