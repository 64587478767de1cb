import test, { type ExecutionContext } from 'ava';
import { createTestApp, type InjectResult, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { openSse } from '../../_helpers/receivers/sse-client.ts';
import { caller, seedTenant, snapshotUrls, type SeededTenant } from './seed-tenant.ts';
import { bodyReferences, EXEMPT, FILTER_MATRIX, NOT_TENANT_ROUTES, playbookDef, ROUTE_MATRIX, type Attacker } from './route-matrix.ts';
import { seededRandom } from '../../_helpers/harness/seeded-random.ts';
import { routeTable, shuffle, type TableRoute } from './route-table.ts';
import { refusalOf, unknownTwin } from './unknown-twin.ts';

// The order in which B's requests are made is shuffled; RAMPART_ISOLATION_SEED replays one.
const seed = Number(process.env.RAMPART_ISOLATION_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`isolation matrix seed: ${seed} (RAMPART_ISOLATION_SEED=${seed} replays this order)`);
const random = seededRandom(seed);
const marker = `alpha${seed.toString(36)}x`;

let app: TestApp;
let a: SeededTenant;
let b: Attacker;
let routes: TableRoute[];
let snapshotBefore: Record<string, unknown>;

async function snapshot(s: SeededTenant): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const url of snapshotUrls(s)) {
    const res = await app.request('GET', url, { token: s.token });
    out[url] = { status: res.statusCode, body: res.body };
  }
  return out;
}

/** Which of A's strings a response carries (raw body and headers), besides those B itself sent. */
function leaked(res: InjectResult, sent = ''): string[] {
  const text = `${res.raw}\n${JSON.stringify(res.headers)}`;
  return a.secrets.filter((s) => text.includes(s) && !sent.includes(s));
}

interface Sent {
  method: string;
  url: string;
  payload?: unknown;
  token: string;
}

/**
 * Sends B's request and checks the refusal: the allowed status, the one error shape, no
 * string of A it was not given, and (for a 404) exactly the answer the same request gets
 * with references that exist nowhere — another tenant's record looks like a missing one.
 */
async function refused(t: ExecutionContext, label: string, req: Sent, allowed: number[]): Promise<InjectResult> {
  const res = await app.request(req.method, req.url, { token: req.token, payload: req.payload });
  const sent = `${req.url} ${JSON.stringify(req.payload ?? null)}`;
  t.true(allowed.includes(res.statusCode), `${label}: expected ${allowed.join(' or ')}, got ${res.statusCode} ${res.raw.slice(0, 300)}`);
  t.is(res.body?.status, 'error', `${label}: the one error shape`);
  t.deepEqual(leaked(res, sent), [], `${label}: the body names A's records`);
  if (res.statusCode === 404 || res.statusCode === 400) {
    const twin = unknownTwin(JSON.stringify({ url: req.url, payload: req.payload ?? null }), a.references, random);
    t.true(twin.pairs.length > 0, `${label}: the request names none of A's records`);
    const { url, payload } = JSON.parse(twin.text) as { url: string; payload: unknown };
    const unknown = await app.request(req.method, url, { token: req.token, payload: payload ?? undefined });
    t.deepEqual(refusalOf(res, twin.pairs), refusalOf(unknown, twin.pairs), `${label}: A's record answers unlike a missing one`);
  }
  return res;
}

test.before(async () => {
  app = await createTestApp({ executors: { pollIntervalMs: 20, agent: { pollIntervalMs: 20 } }, playbooks: { pollIntervalMs: 20 }, exports: { syncMaxRows: 0 } });
  await app.server.start();
  app.ctx.background.actions.start();
  app.ctx.background.playbooks.start();
  app.ctx.background.exports.start();
  a = await seedTenant(app, marker);

  const other = await app.tenant({ name: `bravo-${seed}` });
  const call = caller(app, other.token);
  const asset = (await call('POST', '/api/assets', { name: `bravo${seed}.example`, type: 'domain' })).data.id;
  const webhook = (await call('POST', '/api/webhooks', { name: 'bravo-hook', url: 'https://127.0.0.1:9/bravo', events: ['finding.new'] })).data.id;
  const action = (await call('POST', '/api/actions', { name: 'bravo-fix', type: 'remediation', executor: 'local', config: { target: 'fix.sh' } })).data.id;
  const playbook = (await call('POST', '/api/playbooks', { ...playbookDef(a), name: 'bravo-playbook', version: '1.0.0' })).data.id;
  // B's agent listens on A's label: a claim must still never hand it A's job.
  const agent = (await call('POST', '/api/agents', { name: 'bravo-agent', labels: [a.agentLabel] })).data;
  b = { tenantId: other.tenantId, token: other.token, agentToken: agent.token, ids: { asset, webhook, action, playbook } };
  routes = routeTable(app.server);
  snapshotBefore = await snapshot(a);
});

test.after.always(async () => {
  if (!app) return;
  await app.ctx.background.exports.stop();
  await app.ctx.background.playbooks.stop();
  await app.ctx.background.actions.stop();
  await app.close();
});

test.serial('every route with an id parameter or an id filter has a matrix entry', (t) => {
  const missing = routes
    .filter((r) => r.params.length > 0 && !r.scopes.includes('admin'))
    .filter((r) => !ROUTE_MATRIX[r.key] && !EXEMPT[r.key])
    .map((r) => r.key);
  const missingFilters = routes.flatMap((r) => r.idQueryKeys.map((k) => `${r.method} ${r.path}?${k}`)).filter((k) => !FILTER_MATRIX[k]);
  t.deepEqual(missing, [], 'routes taking an id without an isolation matrix entry (add one to route-matrix.ts)');
  t.deepEqual(missingFilters, [], 'id filters without an isolation matrix entry (add one to FILTER_MATRIX)');
  const stale = [...Object.keys(ROUTE_MATRIX), ...Object.keys(EXEMPT)].filter((k) => !routes.some((r) => r.key === k));
  t.deepEqual(stale, [], 'matrix entries for routes that no longer exist');
  t.true(Object.keys(ROUTE_MATRIX).length >= 60, `the matrix covers ${Object.keys(ROUTE_MATRIX).length} routes`);
});

test.serial('B calling every id route with A\'s ids gets 404 and nothing of A; A\'s records are untouched', async (t) => {
  const probes = routes
    .filter((r) => ROUTE_MATRIX[r.key])
    .flatMap((r) => ROUTE_MATRIX[r.key]!(a, b).map((p) => ({ ...p, method: r.method, key: r.key })));
  let count = 0;
  for (const p of shuffle(probes, random)) {
    const res = await refused(t, `${p.method} ${p.url}`, { method: p.method, url: p.url, payload: p.payload, token: p.as === 'agent' ? b.agentToken : b.token }, [404]);
    if (res.statusCode === 404) t.is(res.body?.error?.code, 'not_found', `${p.method} ${p.url}`);
    count += 1;
  }
  t.log(`${count} requests over ${Object.keys(ROUTE_MATRIX).length} routes`);
  t.deepEqual(await snapshot(a), snapshotBefore, 'A\'s records changed under B\'s requests');
  // B's agent, listening on A's label, is never handed A's queued job.
  const claim = await app.request('POST', '/api/agent/jobs/claim', { token: b.agentToken, payload: { wait_seconds: 0 } });
  t.is(claim.statusCode, 204, claim.raw);
});

test.serial('B filtering lists by A\'s ids, and every list B can read, carry nothing of A', async (t) => {
  for (const [key, urls] of Object.entries(FILTER_MATRIX)) {
    for (const url of urls(a)) {
      const res = await app.request('GET', url, { token: b.token });
      t.true(res.statusCode === 200 || res.statusCode === 404, `${key}: ${url} ${res.statusCode} ${res.raw.slice(0, 200)}`);
      if (res.statusCode === 200) t.deepEqual(res.body.data, [], `${url} lists something`);
      t.deepEqual(leaked(res), [], url);
    }
  }
  const lists = routes.filter((r) => r.method === 'GET' && r.params.length === 0 && r.path !== '/api/events/stream' && !r.scopes.includes('admin') && !NOT_TENANT_ROUTES[r.key]);
  for (const r of lists) {
    const res = await app.request('GET', r.path, { token: b.token });
    t.true(res.statusCode < 400, `${r.key}: ${res.statusCode} ${res.raw.slice(0, 200)}`);
    t.deepEqual(leaked(res), [], r.key);
  }
  t.log(`${Object.values(FILTER_MATRIX).flatMap((f) => f(a)).length} filtered lists, ${lists.length} plain lists`);
  // Counts leak too, even without a string: B's lists count B's own records only.
  const own: Record<string, number> = {
    '/api/assets': 1, '/api/findings': 0, '/api/scans': 0, '/api/scan-schedules': 0, '/api/webhooks': 1, '/api/integrations/siem': 0,
    '/api/credentials': 0, '/api/actions': 1, '/api/agents': 1, '/api/approvals': 0, '/api/playbooks': 1,
  };
  for (const [url, total] of Object.entries(own)) t.is((await app.request('GET', url, { token: b.token })).body.meta.total, total, url);
  const stats = await app.request('GET', '/api/findings/stats', { token: b.token });
  t.is(stats.body.data.total, 0, stats.raw);
});

test.serial('requests whose body names A\'s records are refused with a 4xx and write nothing', async (t) => {
  const totals = async () => {
    const urls = ['/api/findings', '/api/scans', '/api/scan-schedules', '/api/playbooks', '/api/approvals', `/api/actions/${b.ids.action}/executions`, `/api/playbooks/${b.ids.playbook}/executions`];
    return Promise.all(urls.map(async (u) => `${u}=${(await app.request('GET', u, { token: b.token })).body.meta.total}`));
  };
  const before = await totals();
  for (const r of bodyReferences(a, b)) {
    await refused(t, `${r.method} ${r.url} ${JSON.stringify(r.payload).slice(0, 120)}`, { ...r, token: b.token }, [400, 404]);
  }
  t.deepEqual(await totals(), before);
  t.deepEqual(await snapshot(a), snapshotBefore);
});

test.serial('an export B filters by A\'s asset and scan holds none of A\'s findings', async (t) => {
  const call = caller(app, b.token);
  for (const filters of [{ asset_id: a.ids.asset }, { scan_id: a.ids.scan }]) {
    for (const format of ['csv', 'json']) {
      const res = await app.request('POST', '/api/findings/export', { token: b.token, payload: { format, filters } });
      t.true([202, 200, 404].includes(res.statusCode), `${format} ${JSON.stringify(filters)}: ${res.statusCode} ${res.raw.slice(0, 200)}`);
      t.deepEqual(leaked(res), []);
      if (res.statusCode !== 202) continue;
      const id = res.body.data.id;
      await eventually(async () => (await call('GET', `/api/findings/exports/${id}`)).data.status === 'completed', 20_000);
      const file = await app.request('GET', `/api/findings/exports/${id}/download`, { token: b.token });
      t.is(file.statusCode, 200);
      t.deepEqual(leaked(file), [], `${format} export`);
    }
  }
});

test.serial('B\'s event stream, filtered by A\'s asset or not, replays and delivers nothing of A', async (t) => {
  const base = app.server.info.uri;
  const headers = { 'last-event-id': '0' };
  const filtered = await openSse(`${base}/api/events/stream?asset_id=${a.ids.asset}&token=${b.token}`, headers);
  const plain = await openSse(`${base}/api/events/stream?token=${b.token}`, headers);
  const control = await openSse(`${base}/api/events/stream?asset_id=${a.ids.asset}&token=${a.token}`, headers);
  try {
    t.is(filtered.statusCode, 200);
    t.is(plain.statusCode, 200);
    const title = `${marker} live finding`;
    await caller(app, a.token)('POST', '/api/findings', { asset_id: a.ids.asset, title, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' });
    // The control stream (A's own) sees the event; once it has, two heartbeats on B's streams prove they were live past it.
    await control.waitFor((m) => m.some((x) => x.data.includes(title)), 10_000);
    const beats = (m: Array<{ event: string }>) => m.filter((x) => x.event === 'heartbeat').length;
    const [f0, p0] = [beats(filtered.messages), beats(plain.messages)];
    await filtered.waitFor((m) => beats(m) >= f0 + 2, 10_000);
    await plain.waitFor((m) => beats(m) >= p0 + 2, 10_000);
    t.deepEqual(filtered.messages.filter((m) => m.event !== 'heartbeat' && m.retry === null), [], 'B\'s stream filtered by A\'s asset delivered events');
    const text = JSON.stringify([...filtered.messages, ...plain.messages]);
    t.deepEqual(a.secrets.filter((s) => text.includes(s)), [], 'B\'s streams carry A\'s strings');
    t.false(text.includes(title));
    // A's own finding changed A's asset (its risk): the later tests compare against this.
    snapshotBefore = await snapshot(a);
  } finally {
    filtered.close();
    plain.close();
    control.close();
  }
});

test.serial('admin routes answer 403 to a tenant token, naming nothing of A', async (t) => {
  const me = (await app.request('GET', '/api/user/me', { token: a.token })).body.data;
  const tokenId = me.token?.id ?? me.token_id;
  t.truthy(tokenId, JSON.stringify(me));
  const user = await app.request('POST', `/api/admin/tenants/${a.tenantId}/users`, { payload: { email: `${marker}@example.com`, password: 'a long passphrase 123', scopes: ['findings:read'] } });
  t.is(user.statusCode, 201, user.raw);
  const ids: Record<string, string> = { tenant_id: a.tenantId, token_id: tokenId, user_id: user.body.data.id };
  a.secrets.push(tokenId, user.body.data.id, `${marker}@example.com`);
  const bodies: Record<string, unknown> = {
    'POST /api/admin/tenants': { name: `${marker}-new`, tier: 'standard' },
    'PATCH /api/admin/tenants/{tenant_id}': { name: `${marker}-renamed` },
    'POST /api/admin/tenants/{tenant_id}/users': { email: `${marker}-2@example.com`, password: 'a long passphrase 123', scopes: ['findings:read'] },
    'POST /api/admin/tenants/{tenant_id}/tokens': { name: 'stolen', scopes: ['findings:read'] },
  };
  // Admin-only routes (a route that also takes a tenant scope, such as GET /api/feeds, is not one).
  const admin = routes.filter((r) => r.scopes.length > 0 && r.scopes.every((s) => s === 'admin'));
  t.true(admin.length >= 10, `${admin.length} admin routes`);
  for (const r of admin) {
    const url = r.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? `missing-${name}`);
    const res = await refused(t, r.key, { method: r.method, url, payload: bodies[r.key], token: b.token }, [403]);
    t.is(res.body?.error?.code, 'insufficient_scope', r.key);
  }
  t.deepEqual(await snapshot(a), snapshotBefore);
});
