import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';

let t0: TestApp;
// The limiter's clock stands still unless a test moves it: no refill while a burst is sent.
const clock = { now: Date.now() };
test.before(async () => {
  // The production numbers (config/test.json raises them for every other test file).
  t0 = await createTestApp({ rateLimit: DEFAULT_RATE_LIMITS }, { rateLimitClock: () => clock.now });
});
test.after.always(async () => {
  await t0?.close();
});

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

async function inject(method: string, url: string, options: { token?: string; remoteAddress?: string; payload?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await t0.server.inject({ method, url, headers, payload: options.payload as object, remoteAddress: options.remoteAddress ?? '127.0.0.1' });
  return { statusCode: res.statusCode, headers: res.headers as Record<string, string | undefined>, body: res.payload ? JSON.parse(res.payload) : null };
}

test.serial('a fresh Standard tenant: exactly 20 at once, then 429 with the exact body; after retry_after seconds it succeeds', async (t) => {
  const { token } = await t0.tenant({ tier: 'standard' });
  for (let i = 0; i < 20; i++) {
    const ok = await inject('GET', '/api/user/me', { token });
    t.is(ok.statusCode, 200);
    t.is(ok.headers['x-ratelimit-limit'], '20');
    t.is(Number(ok.headers['x-ratelimit-remaining']), 19 - i);
  }
  const refused = await inject('GET', '/api/user/me', { token });
  t.is(refused.statusCode, 429);
  t.deepEqual(Object.keys(refused.body), ['status', 'error']);
  t.deepEqual(Object.keys(refused.body.error), ['code', 'message', 'retry_after']);
  t.is(refused.body.status, 'error');
  t.is(refused.body.error.code, 'rate_limited');
  t.is(refused.body.error.retry_after, 1, '100/min: the next token comes 600 ms after the bucket ran dry');
  t.is(refused.headers['retry-after'], '1');
  t.is(refused.headers['x-ratelimit-remaining'], '0');
  t.is(refused.headers['x-ratelimit-limit'], '20');
  t.is(refused.headers['x-ratelimit-reset'], String(Math.ceil((clock.now + 12_000) / 1000)), 'full again 20 x 600 ms after the burst');
  t.is(refused.headers['ratelimit-policy'], '"standard";q=100;w=60;burst=20');
  t.is(refused.headers.ratelimit, '"standard";r=0;t=1');
  clock.now += refused.body.error.retry_after * 1000;
  const again = await inject('GET', '/api/user/me', { token });
  t.is(again.statusCode, 200);
});

test('Premium bursts 100 and Enterprise 500, from the tenant tier', async (t) => {
  for (const [tier, burst] of [['premium', 100], ['enterprise', 500]] as const) {
    const { token } = await t0.tenant({ tier });
    let ok = 0;
    for (let i = 0; i < burst + 1; i++) if ((await inject('GET', '/api/user/me', { token })).statusCode === 200) ok++;
    t.is(ok, burst, tier);
    const refused = await inject('GET', '/api/user/me', { token });
    t.is(refused.statusCode, 429);
    t.is(refused.headers['x-ratelimit-limit'], String(burst));
  }
});

test('rate-limit headers on every response, errors included; 403 and 404 take no token, a 401 takes one from the client address', async (t) => {
  const { token } = await t0.tenant({ scopes: ['assets:read'] });
  const responses = [
    await inject('GET', '/api/user/me', { token }),
    await inject('GET', '/api/admin/tenants', { token }),
    await inject('GET', '/api/assets/ast_nope', { token }),
    await inject('GET', '/api/assets?per_page=1000', { token }),
    await inject('GET', '/api/no/such/route', { token }),
    await inject('GET', '/api/user/me', { token: 'not-a-token' }),
  ];
  t.deepEqual(responses.map((r) => r.statusCode), [200, 403, 400, 400, 404, 401]);
  for (const res of responses) for (const name of RATE_HEADERS) t.truthy(res.headers[name], `${res.statusCode} ${name}`);
  t.regex(responses[5]!.headers['ratelimit-policy']!, /^"anonymous"/, 'no valid token: the client-address bucket');
  // 200 took one token and the 400s were charged before validation; 403 and 404 were not.
  t.is(responses[3]!.headers['x-ratelimit-remaining'], '17');
  t.is(responses[4]!.headers['x-ratelimit-remaining'], '20', '404 of an unknown route: no route, no tenant, client bucket peeked');
  t.is(responses[5]!.headers['x-ratelimit-remaining'], '19', 'a failed authentication is charged to the client address');
});

test('GET /api/health is exempt: no headers, never 429', async (t) => {
  for (let i = 0; i < 40; i++) {
    const res = await inject('GET', '/api/health', { remoteAddress: '10.9.9.9' });
    t.is(res.statusCode, 200);
    for (const name of RATE_HEADERS) t.is(res.headers[name], undefined);
  }
});

test('login: 10 per minute per client address and account, on top of the client budget', async (t) => {
  const login = (email: string, remoteAddress: string) => inject('POST', '/api/user/auth/login', { remoteAddress, payload: { email, password: 'wrong password' } });
  for (let i = 0; i < 10; i++) {
    const res = await login('Victim@example.com', '10.1.0.1');
    t.is(res.statusCode, 401);
    t.is(res.headers['x-ratelimit-remaining'], String(9 - i));
  }
  const refused = await login('victim@example.com', '10.1.0.1');
  t.is(refused.statusCode, 429);
  t.is(refused.body.error.retry_after, 6);
  t.regex(String(refused.headers['ratelimit-policy']), /"anonymous";q=100;w=60;burst=20, "login";q=10;w=60/);
  t.is((await login('other@example.com', '10.1.0.1')).statusCode, 401, 'another account from the same address');
  t.is((await login('victim@example.com', '10.1.0.2')).statusCode, 401, 'the same account from another address');
});

test('requests without a token share their client address budget (20 at once)', async (t) => {
  let ok = 0;
  for (let i = 0; i < 21; i++) if ((await inject('GET', '/api/openapi.json', { remoteAddress: '10.2.0.1' })).statusCode === 200) ok++;
  t.is(ok, 20);
  const refused = await inject('GET', '/api/openapi.json', { remoteAddress: '10.2.0.1' });
  t.is(refused.statusCode, 429);
  t.is((await inject('GET', '/api/openapi.json', { remoteAddress: '10.2.0.2' })).statusCode, 200);
});

test('POST /api/assets/bulk: 5 per minute per tenant, on top of the tier budget', async (t) => {
  const a = await t0.tenant({ tier: 'enterprise' });
  const b = await t0.tenant({ tier: 'enterprise' });
  const bulk = (token: string, i: number) =>
    inject('POST', '/api/assets/bulk', { token, payload: { assets: [{ name: `host${i}.example.com`, type: 'domain' }] } });
  for (let i = 0; i < 5; i++) {
    const res = await bulk(a.token, i);
    t.is(res.statusCode, 200);
    t.is(res.headers['x-ratelimit-limit'], '5', 'the endpoint bucket binds');
    t.regex(String(res.headers['ratelimit-policy']), /^"enterprise";q=10000;w=60;burst=500, "assets-bulk";q=5;w=60$/);
  }
  const refused = await bulk(a.token, 5);
  t.is(refused.statusCode, 429);
  t.is(refused.body.error.retry_after, 12);
  t.is((await bulk(b.token, 0)).statusCode, 200, 'per tenant');
  t.is((await inject('GET', '/api/user/me', { token: a.token })).statusCode, 200, 'the tier budget still has tokens');
});

// Each route declares its own limit in its options. Invalid payloads keep the test about the
// limit alone: the token is taken before validation and the handler, so 400s count too.
for (const [path, perMinute, name, payload] of [
  ['/api/scan/create', 10, 'scan-create', { not_a_field: true }],
  ['/api/findings/export', 5, 'findings-export', { not_a_field: true }],
  ['/api/assets/bulk', 5, 'assets-bulk', { assets: [] }],
] as const) {
  // Serial: run apart from the long burst tests, so a loaded machine cannot time the request out (408) before it is charged.
  test.serial(`POST ${path}: ${perMinute} per minute, declared by the route`, async (t) => {
    const { token } = await t0.tenant({ tier: 'enterprise' });
    for (let i = 0; i < perMinute; i++) {
      const res = await inject('POST', path, { token, payload });
      t.true(res.statusCode >= 200 && res.statusCode < 429, `${res.statusCode} ${JSON.stringify(res.body)}`);
      t.is(res.headers['x-ratelimit-remaining'], String(perMinute - 1 - i), `${res.statusCode} ${JSON.stringify(res.body)} ${res.headers.ratelimit}`);
      t.regex(String(res.headers['ratelimit-policy']), new RegExp(`"${name}";q=${perMinute};w=60$`));
    }
    const refused = await inject('POST', path, { token, payload });
    t.is(refused.statusCode, 429);
    t.is(refused.body.error.retry_after, 60 / perMinute);
  });
}

// A real spray waits for each answer: at 0.75 s per scrypt hash it stays under the client
// budget (100/min) and meets a fresh per-account bucket every time.
test.serial('login: 40 emails from one address at hashing pace stop at the per-address login limit (20 per minute)', async (t) => {
  const statuses: number[] = [];
  let refused: Awaited<ReturnType<typeof inject>> | null = null;
  for (let i = 0; i < 40; i++) {
    const res = await inject('POST', '/api/user/auth/login', { remoteAddress: '10.3.0.1', payload: { email: `spray-${i}@example.com`, password: 'Winter2026!' } });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) refused ??= res;
    clock.now += 750;
  }
  // 20 at once plus one every 3 s: 0.25 tokens back per 0.75 s request, so the 27th is refused.
  t.deepEqual(statuses.slice(0, 26), Array(26).fill(401));
  t.is(statuses[26], 429);
  t.true(statuses.slice(26).every((s) => s === 429 || s === 401));
  t.is(refused!.body.error.code, 'rate_limited');
  t.is(refused!.headers['x-ratelimit-limit'], '20');
  t.is(refused!.headers['retry-after'], String(refused!.body.error.retry_after));
  t.regex(String(refused!.headers['ratelimit-policy']), /"login-address";q=20;w=60/);
  const elsewhere = await inject('POST', '/api/user/auth/login', { remoteAddress: '10.3.0.2', payload: { email: 'spray-0@example.com', password: 'Winter2026!' } });
  t.is(elsewhere.statusCode, 401, 'another address has its own login budget');
});

for (const [n, label, headers] of [
  [1, 'no token', {}],
  [2, 'an unknown token', { authorization: 'Bearer rmp_this-token-does-not-exist' }],
  [3, 'a malformed Authorization header', { authorization: 'Basic dXNlcjpwYXNz' }],
] as const) {
  test(`requests with ${label} pay from the client address: 20 × 401, then 429 with the headers`, async (t) => {
    const remoteAddress = `10.4.0.${n}`;
    for (let i = 0; i < 20; i++) {
      const res = await inject('GET', '/api/assets', { remoteAddress, headers });
      t.is(res.statusCode, 401);
      t.is(res.headers['x-ratelimit-remaining'], String(19 - i));
      t.regex(String(res.headers['ratelimit-policy']), /^"anonymous";q=100;w=60;burst=20$/);
    }
    const refused = await inject('GET', '/api/assets', { remoteAddress, headers });
    t.is(refused.statusCode, 429);
    t.deepEqual(refused.body, { status: 'error', error: { code: 'rate_limited', message: refused.body.error.message, retry_after: 1 } });
    t.is(refused.headers['retry-after'], '1');
    t.is(refused.headers['x-ratelimit-limit'], '20');
    t.is(refused.headers['x-ratelimit-remaining'], '0');
    t.is(refused.headers.ratelimit, '"anonymous";r=0;t=1');
    t.is(refused.headers['www-authenticate'], undefined, 'a 429, not a 401');
    const { token } = await t0.tenant({ tier: 'standard' });
    t.is((await inject('GET', '/api/user/me', { remoteAddress, token })).statusCode, 200, 'a valid token from the same address pays from its tenant');
    t.is((await inject('GET', '/api/health', { remoteAddress })).statusCode, 200, 'health stays free');
  });
}
