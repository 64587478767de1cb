import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';
import { parsePrometheusText, sampleValue, type Exposition } from '../../_helpers/parsers/prometheus-text.ts';

// Serial: the figures are process-wide, so one test's requests would move another's deltas.
const SCRAPE_TOKEN = 'scrape-token-0123456789abcdef0123456789';
let t0: TestApp;
test.before(async () => {
  // Production rate limits (5 exports a minute) so a refusal is easy to cause; two-row sync exports.
  t0 = await createTestApp({ metrics: { token: SCRAPE_TOKEN }, rateLimit: DEFAULT_RATE_LIMITS, exports: { syncMaxRows: 1 } });
});
test.after.always(async () => {
  await t0?.close();
});

async function scrape(): Promise<Exposition> {
  const res = await t0.request('GET', '/metrics', { token: SCRAPE_TOKEN });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.raw}`);
  return parsePrometheusText(res.raw);
}

test.serial('the scrape needs the metrics token: none, a tenant token or the admin token get 401', async (t) => {
  const tenant = await t0.tenant();
  for (const token of [null, tenant.token, t0.adminToken, `${SCRAPE_TOKEN}x`]) {
    const res = await t0.request('GET', '/metrics', { token });
    t.is(res.statusCode, 401);
    t.is(res.body.error.code, 'unauthorized');
    t.false(res.raw.includes('rampart_'));
  }
  const ok = await t0.request('GET', '/metrics', { token: SCRAPE_TOKEN });
  t.is(ok.statusCode, 200);
  t.regex(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  t.is(ok.headers['cache-control'], 'no-store');
});

test.serial('without a configured token /metrics says it is off and how to turn it on (not a bare 404 like a mistyped URL)', async (t) => {
  const other = await createTestApp();
  try {
    const res = await other.request('GET', '/metrics', { token: SCRAPE_TOKEN });
    t.is(res.statusCode, 404);
    t.is(res.body.error.code, 'metrics_disabled');
    t.regex(res.body.error.message, /off/);
    t.regex(res.body.error.message, /RAMPART__metrics__token/);
    t.regex(res.body.error.message, /docs\/operations\.md/);
    t.false(/\b[0-9a-f]{24,}\b/.test(res.raw), 'nothing about the token leaks');
  } finally {
    await other.close();
  }
});

test.serial('requests are timed by route template and status, never by raw URL or tenant', async (t) => {
  const tenant = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `metrics-${Date.now()}.example`, type: 'domain' } });
  const id = asset.body.data.id as string;
  const before = sampleValue(await scrape(), 'rampart_http_request_duration_seconds_count', { route: '/api/assets/{id}', method: 'GET', status: '200' }) ?? 0;
  for (let i = 0; i < 3; i += 1) t.is((await t0.request('GET', `/api/assets/${id}`, { token: tenant.token })).statusCode, 200);
  // Another tenant's asset: a 404 for this tenant.
  const other = await t0.tenant();
  t.is((await t0.request('GET', `/api/assets/${id}`, { token: other.token })).statusCode, 404);
  const after = await scrape();
  t.is(sampleValue(after, 'rampart_http_request_duration_seconds_count', { route: '/api/assets/{id}', method: 'GET', status: '200' }), before + 3);
  t.is(sampleValue(after, 'rampart_http_request_duration_seconds_count', { route: '/api/assets/{id}', method: 'GET', status: '404' }), 1);
  const body = (await t0.request('GET', '/metrics', { token: SCRAPE_TOKEN })).raw;
  t.false(body.includes(id));
  t.false(body.includes(tenant.tenantId));
  t.is(after.types.get('rampart_http_request_duration_seconds'), 'histogram');
});

test.serial('rate-limit refusals, findings created, queue depth and age, and process figures are exposed', async (t) => {
  const tenant = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `metrics-q-${Date.now()}.example`, type: 'domain' } });
  const before = await scrape();
  const created = await t0.request('POST', '/api/findings/bulk', {
    token: tenant.token,
    payload: { findings: ['one', 'two'].map((title) => ({ asset_id: asset.body.data.id, title, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', description: '', remediation: '' })) },
  });
  t.is(created.statusCode, 201);
  // Two findings are over the one-row sync limit: the export is queued (no worker runs here).
  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) statuses.push((await t0.request('POST', '/api/findings/export', { token: tenant.token, payload: { format: 'csv' } })).statusCode);
  t.true(statuses.includes(202));
  t.true(statuses.includes(429));
  const after = await scrape();
  const refusals = (e: Exposition) => sampleValue(e, 'rampart_rate_limit_refusals_total', { route: '/api/findings/export' }) ?? 0;
  t.is(refusals(after) - refusals(before), statuses.filter((s) => s === 429).length);
  t.is((sampleValue(after, 'rampart_findings_created_total') ?? 0) - (sampleValue(before, 'rampart_findings_created_total') ?? 0), 2);
  t.is((sampleValue(after, 'rampart_events_total', { kind: 'finding.new' }) ?? 0) - (sampleValue(before, 'rampart_events_total', { kind: 'finding.new' }) ?? 0), 2);
  t.true((sampleValue(after, 'rampart_queue_depth', { queue: 'exports' }) ?? 0) >= 1);
  t.true((sampleValue(after, 'rampart_queue_oldest_age_seconds', { queue: 'exports' }) ?? -1) >= 0);
  for (const queue of ['scans', 'webhook_deliveries', 'action_runs', 'playbook_runs', 'scan_callbacks', 'agent_jobs']) {
    t.is(typeof sampleValue(after, 'rampart_queue_depth', { queue }), 'number', queue);
  }
  t.is(sampleValue(after, 'rampart_sse_connections'), 0);
  t.is(typeof sampleValue(after, 'rampart_nodejs_eventloop_lag_seconds'), 'number');
  t.true((sampleValue(after, 'rampart_db_pool_connections', { state: 'free' }) ?? -1) >= 0);
});

test.serial('SIEM forwarding lag per active integration counts its tenant\'s events after the cursor', async (t) => {
  const tenant = await t0.tenant();
  const created = await t0.request('POST', '/api/integrations/siem', {
    token: tenant.token,
    payload: { type: 'syslog', protocol: 'udp', host: '127.0.0.1', port: 514, format: 'cef', events: ['finding.new'], name: 'lagging' },
  });
  t.is(created.statusCode, 201, created.raw);
  const id = created.body.data.id as string;
  t.is(sampleValue(await scrape(), 'rampart_siem_forwarding_lag_events', { integration: id }), 0);
  // Nothing forwards here (no worker runs): the tenant's new events pile up behind the cursor.
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `metrics-siem-${Date.now()}.example`, type: 'domain' } });
  await t0.request('POST', '/api/findings/bulk', {
    token: tenant.token,
    payload: { findings: [{ asset_id: asset.body.data.id, title: 'lag', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', description: '', remediation: '' }] },
  });
  // Another tenant's events are not this integration's lag.
  const other = await t0.tenant();
  await t0.request('POST', '/api/assets', { token: other.token, payload: { name: `metrics-siem-other-${Date.now()}.example`, type: 'domain' } });
  const e = await scrape();
  t.is(sampleValue(e, 'rampart_siem_forwarding_lag_events', { integration: id }), 2); // asset.created + finding.new
  t.true((sampleValue(e, 'rampart_siem_forwarding_lag_seconds', { integration: id }) ?? -1) >= 0);
  await t0.request('PUT', `/api/integrations/siem/${id}`, { token: tenant.token, payload: { active: false } });
  t.is(sampleValue(await scrape(), 'rampart_siem_forwarding_lag_events', { integration: id }), undefined);
});
