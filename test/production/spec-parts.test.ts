import test from 'ava';
import { eventually } from '../_helpers/harness/eventually.ts';
import { openStream, signedBy, specClient, startReceiver, type EventStream } from '../_helpers/console/spec-client.ts';
import { readmeLabSettings, startProduction, type ProductionServer } from '../_helpers/console/production-start.ts';

// Issue 24: the nine parts of the API specification, driven as a client written from the
// spec alone would drive them (only the fields the spec shows), against Rampart started
// exactly as the README starts it: `npm start` (the compiled dist/), NODE_ENV=production,
// the default configuration plus only what the README tells a user to set (its lab
// settings, to scan this machine and send webhooks to loopback). One server for the file;
// each part is create → read → list → act → event.

let server: ProductionServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let stream: EventStream;
let call: ReturnType<typeof specClient>;
const SECRET = 'a-spec-client-secret';
const ALL_KINDS = ['scan.created', 'scan.completed', 'scan.failed', 'finding.new', 'finding.status_changed', 'action.triggered', 'action.completed', 'action.failed', 'playbook.started', 'playbook.completed', 'playbook.failed', 'asset.created', 'asset.verified'];
const ids: Record<string, string> = {};

test.before(async () => {
  [server, receiver] = await Promise.all([startProduction(readmeLabSettings()), startReceiver()]);
  call = specClient(server.url, server.adminToken);
  // The event stream is opened first and reads everything the file does (the token in the query, as the spec allows).
  stream = await openStream(server.url, `token=${server.adminToken}`);
});
test.after.always(async () => {
  stream?.close();
  await receiver?.close();
  await server?.stop();
});

const sawEvent = (kind: string, match: (data: any) => boolean = () => true) => eventually(async () => stream.events.find((e) => e.event === kind && match(e.data)), 60_000, 100);
const delivered = (kind: string) => eventually(async () => receiver.received.find((d) => d.path === '/hook' && d.body?.event === kind), 60_000, 100);

test.serial('webhooks: create, read, list, test, deliveries signed with X-SVC-Signature', async (t) => {
  const created = await call('POST', '/api/webhooks', { name: 'soc', url: `${receiver.url}/hook`, events: ALL_KINDS, secret: SECRET, headers: { 'x-team': 'soc' } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { name: 'soc', url: `${receiver.url}/hook`, events: ALL_KINDS, active: true });
  t.truthy(created.body.data.id && created.body.data.created_at);
  t.false(JSON.stringify(created.body).includes(SECRET), 'the secret is write-only');
  ids.webhook = created.body.data.id;
  const list = await call('GET', '/api/webhooks');
  t.is(list.status, 200);
  t.true(list.body.data.some((w: any) => w.id === ids.webhook));
  t.is((await call('PUT', `/api/webhooks/${ids.webhook}`, { events: ALL_KINDS, active: true })).status, 200);
  t.true((await call('POST', `/api/webhooks/${ids.webhook}/test`)).status < 300);
  const sample = await delivered('webhook.test');
  t.true(signedBy(sample, SECRET));
  t.is(sample.headers['x-team'], 'soc');
  t.like(sample.body, { event: 'webhook.test' });
  t.truthy(sample.body.id && sample.body.timestamp && sample.body.data);
  const deliveries = await eventually(async () => {
    const answer = await call('GET', `/api/webhooks/${ids.webhook}/deliveries`);
    return answer.body.data.find((d: any) => d.event === 'webhook.test' && d.status === 'delivered');
  }, 30_000, 200);
  t.is(deliveries.response_code, 200);
  t.is(typeof deliveries.duration_ms, 'number');
  t.truthy(deliveries.id && deliveries.timestamp);
});

test.serial('assets: create, read, list, update, verify, asset.created', async (t) => {
  const created = await call('POST', '/api/assets', { name: `${receiver.url}/`, type: 'url', tags: ['lab'], metadata: { owner: 'soc' } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { name: `${receiver.url}/`, type: 'url', status: 'pending_verification', verified: false, tags: ['lab'] });
  ids.asset = created.body.data.id;
  const detail = (await call('GET', `/api/assets/${ids.asset}`)).body.data;
  t.deepEqual(detail.metadata, { owner: 'soc' });
  t.deepEqual(Object.keys(detail.finding_summary).sort(), ['critical', 'high', 'info', 'low', 'medium']);
  t.truthy(detail.updated_at);
  const list = await call('GET', '/api/assets?tag=lab&type=url&sort_by=name&sort_order=asc');
  t.is(list.body.data.length, 1);
  t.is(list.body.data[0].metadata, undefined, 'the list view omits metadata');
  t.like(list.body.meta, { total: 1, page: 1, per_page: 20, total_pages: 1 });
  t.true((await call('PUT', `/api/assets/${ids.asset}`, { tags: ['lab', 'web'], metadata: { owner: 'soc' } })).status < 300);
  const verify = await call('POST', `/api/assets/${ids.asset}/verify`);
  t.is(verify.status < 300, true, JSON.stringify(verify.body));
  for (const key of ['verification_method', 'verification_token', 'instructions']) t.is(typeof verify.body.data[key], 'string', key);
  t.truthy(await sawEvent('asset.created'));
  t.truthy(await delivered('asset.created'));
});

test.serial('scans: create, status, list, details, results, a second scan cancelled, scan events', async (t) => {
  t.timeout(240_000);
  const created = await call('POST', '/api/scan/create', { asset_id: ids.asset, scan_type: 'web_app', priority: 'high' });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { asset_id: ids.asset, scan_type: 'web_app', status: 'queued', priority: 'high' });
  ids.scan = created.body.data.scan_id;
  // Polled no more often than once a second, as the spec asks.
  const done = await eventually(async () => {
    const status = (await call('GET', `/api/scan/${ids.scan}/status`)).body.data;
    return ['completed', 'failed', 'cancelled'].includes(status.status) ? status : undefined;
  }, 200_000, 1000);
  t.like(done, { scan_id: ids.scan, status: 'completed', progress: 100 });
  const details = (await call('GET', `/api/scan/${ids.scan}`)).body.data;
  t.like(details, { scan_id: ids.scan, asset_id: ids.asset, asset_name: `${receiver.url}/`, status: 'completed' });
  const list = await call('GET', `/api/scans?asset_id=${ids.asset}&status=completed`);
  t.true(list.body.data.some((s: any) => s.scan_id === ids.scan));
  const results = await call('GET', `/api/scan/${ids.scan}/results`);
  t.true(results.body.data.length > 0, 'an HTTP server without security headers has findings');
  t.like(results.body.meta, { page: 1, per_page: 20 });
  t.truthy(await sawEvent('scan.created', (d) => d.scan_id === ids.scan));
  t.truthy(await sawEvent('scan.completed', (d) => d.scan_id === ids.scan));
  t.truthy(await delivered('scan.completed'));

  const second = (await call('POST', '/api/scan/create', { asset_id: ids.asset, scan_type: 'web_app' })).body.data.scan_id;
  t.true((await call('POST', `/api/scan/${second}/cancel`)).status < 300);
  t.is((await call('GET', `/api/scan/${second}/status`)).body.data.status, 'cancelled');
});

test.serial('findings: list, detail, status change, stats, export, finding events', async (t) => {
  const list = await call('GET', `/api/findings?asset_id=${ids.asset}&sort_by=severity&sort_order=desc`);
  t.true(list.body.data.length > 0);
  t.like(list.body.meta, { page: 1, per_page: 20 });
  const first = list.body.data[0];
  t.like(first.asset, { id: ids.asset });
  const detail = (await call('GET', `/api/findings/${first.id}`)).body.data;
  for (const key of ['title', 'severity', 'cvss', 'status', 'scan_id', 'description', 'remediation', 'discovered_at', 'updated_at']) t.not(detail[key], undefined, key);
  const changed = await call('PUT', `/api/findings/${first.id}/status`, { status: 'accepted_risk', note: 'lab' });
  t.is(changed.status, 200, JSON.stringify(changed.body));
  t.like(changed.body.data, { id: first.id, status: 'accepted_risk' });
  t.truthy(changed.body.data.updated_by && changed.body.data.updated_at);
  t.truthy(await sawEvent('finding.status_changed', (d) => d.finding_id === first.id && d.new_status === 'accepted_risk'));
  t.truthy(await sawEvent('finding.new'));
  const news = await delivered('finding.new');
  t.true(signedBy(news, SECRET));
  for (const key of ['finding_id', 'title', 'severity', 'cvss', 'asset', 'scan_id']) t.not(news.body.data[key], undefined, key);
  const stats = (await call('GET', '/api/findings/stats')).body.data;
  t.is(stats.by_status.accepted_risk, 1);
  for (const key of ['new', 'resolved', 'net_change']) t.is(typeof stats.trend.last_30_days[key], 'number', key);
  const exported = await call('POST', '/api/findings/export', { format: 'json', filters: { asset_id: ids.asset } });
  t.true(exported.status < 300, JSON.stringify(exported.body).slice(0, 300));
});

test.serial('actions: create, list, trigger, execution with logs, executions list, action events', async (t) => {
  const created = await call('POST', '/api/actions', {
    name: 'block-ip', type: 'webhook', description: 'Ask the firewall to block an address.', executor: 'webhook',
    parameters: [{ name: 'ip', type: 'string', required: true }],
    config: { url: `${receiver.url}/firewall`, method: 'POST', headers: { 'x-firewall': 'lab' }, body_template: '{"ip": "{{ ip }}"}' },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { name: 'block-ip', type: 'webhook', executor: 'webhook', version: '1.0.0' });
  ids.action = created.body.data.id;
  const list = await call('GET', '/api/actions?type=webhook&search=firewall');
  t.true(list.body.data.some((a: any) => a.id === ids.action));
  t.like(list.body.meta, { page: 1, per_page: 20 });
  const triggered = await call('POST', `/api/actions/${ids.action}/trigger`, { target: ids.asset, parameters: { ip: '203.0.113.9' } });
  t.true(triggered.status < 300, JSON.stringify(triggered.body));
  t.like(triggered.body.data, { action_id: ids.action });
  t.truthy(triggered.body.data.execution_id && triggered.body.data.status);
  // A run is queued (202): started_at is there, null until a worker starts it.
  t.true('started_at' in triggered.body.data);
  const execution = await eventually(async () => {
    const record = (await call('GET', `/api/actions/executions/${triggered.body.data.execution_id}`)).body.data;
    return ['completed', 'failed', 'timeout', 'timed_out', 'cancelled'].includes(record.status) ? record : undefined;
  }, 60_000, 250);
  t.like(execution, { execution_id: triggered.body.data.execution_id, action_id: ids.action, status: 'completed' });
  t.true(Array.isArray(execution.logs) && execution.logs.every((l: any) => l.timestamp && l.level && typeof l.message === 'string'));
  const call0 = receiver.received.find((d) => d.path === '/firewall');
  t.deepEqual(call0?.body, { ip: '203.0.113.9' });
  t.is(call0?.headers['x-firewall'], 'lab');
  const executions = await call('GET', `/api/actions/${ids.action}/executions`);
  t.true(executions.body.data.some((e: any) => e.execution_id === triggered.body.data.execution_id));
  t.truthy(await sawEvent('action.triggered', (d) => d.execution_id === triggered.body.data.execution_id));
  t.truthy(await sawEvent('action.completed', (d) => d.execution_id === triggered.body.data.execution_id));
  t.truthy(await delivered('action.completed'));
});

test.serial('playbooks: create, read, list, run, execution and steps, CACAO export, playbook events', async (t) => {
  const created = await call('POST', '/api/playbooks', {
    name: 'contain', version: '1.0.0', description: 'Block the address of a critical finding.',
    trigger: { event: 'finding.new', conditions: { severity: 'critical' } },
    steps: [{ id: 'block', name: 'Block', type: 'action', action_ref: 'block-ip', parameters: { ip: '{{ parameters.ip }}' } }],
    on_failure: 'abort', timeout_minutes: 10, tags: ['lab'],
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { name: 'contain', version: '1.0.0', step_count: 1 });
  ids.playbook = created.body.data.id;
  const full = (await call('GET', `/api/playbooks/${ids.playbook}`)).body.data;
  t.like(full.steps[0], { id: 'block', action_ref: 'block-ip' });
  const list = await call('GET', '/api/playbooks?tag=lab');
  t.true(list.body.data.some((p: any) => p.id === ids.playbook && p.step_count === 1));
  // The spec's form: `{{ parameters.ip }}` in a step, no declaration, the value given at run time.
  const run = await call('POST', `/api/playbooks/${ids.playbook}/run`, { target_asset_id: ids.asset, parameters: { ip: '198.51.100.7' } });
  t.true(run.status < 300, JSON.stringify(run.body));
  t.like(run.body.data, { playbook_id: ids.playbook });
  const execution = await eventually(async () => {
    const record = (await call('GET', `/api/playbooks/executions/${run.body.data.execution_id}`)).body.data;
    return ['completed', 'failed', 'cancelled'].includes(record.status) ? record : undefined;
  }, 60_000, 250);
  t.like(execution, { playbook_id: ids.playbook, playbook_name: 'contain', status: 'completed', steps_completed: 1, steps_total: 1 });
  const steps = (await call('GET', `/api/playbooks/executions/${run.body.data.execution_id}/steps`)).body.data;
  t.like(steps[0], { step_id: 'block', step_name: 'Block', status: 'completed' });
  const cacao = await call('GET', `/api/playbooks/${ids.playbook}/export?format=cacao_v2`);
  t.is(cacao.status, 200);
  t.is(cacao.body.type, 'playbook');
  t.is(cacao.body.name, 'contain');
  t.truthy(await sawEvent('playbook.started', (d) => d.execution_id === run.body.data.execution_id));
  t.truthy(await sawEvent('playbook.completed', (d) => d.execution_id === run.body.data.execution_id));
});

test.serial('event stream: retry sent once, kinds and ids, filters, Last-Event-ID replay', async (t) => {
  t.is(typeof stream.retry(), 'number');
  t.true(stream.events.every((e) => e.id !== '' || e.event === 'heartbeat'));
  const first = stream.events.find((e) => e.event === 'asset.created')!;
  const replay = await openStream(server.url, `token=${server.adminToken}&events=scan.completed,finding.status_changed&asset_id=${ids.asset}`, { 'last-event-id': first.id });
  t.teardown(() => replay.close());
  const kinds = await eventually(async () => {
    const seen = new Set(replay.events.map((e) => e.event));
    return seen.has('scan.completed') && seen.has('finding.status_changed') ? seen : undefined;
  }, 30_000, 100);
  t.deepEqual([...kinds].sort(), ['finding.status_changed', 'scan.completed']);
  // A header instead of the query works too.
  const byHeader = await fetch(`${server.url}/api/events/stream`, { headers: { authorization: `Bearer ${server.adminToken}`, accept: 'text/event-stream' } });
  t.is(byHeader.status, 200);
  await byHeader.body?.cancel();
  t.is((await fetch(`${server.url}/api/events/stream?token=rmp_not_a_token`)).status, 401);
});

test.serial('SIEM: create with the spec\'s fields, read, list; forwarding by webhook in a collector envelope', async (t) => {
  const created = await call('POST', '/api/integrations/siem', { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: 6514, format: 'cef', events: ['finding.new', 'scan.completed'] });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: 6514, format: 'cef' });
  const id = created.body.data.id;
  t.is((await call('GET', `/api/integrations/siem/${id}`)).status, 200);
  t.true((await call('GET', '/api/integrations/siem')).body.data.some((s: any) => s.id === id));
  const hec = await call('POST', '/api/webhooks', { name: 'collector', url: `${receiver.url}/hec`, events: ['scan.completed'], transform: 'hec', filters: { min_severity: 'high' } });
  t.is(hec.status, 201, JSON.stringify(hec.body));
  await call('POST', '/api/scan/create', { asset_id: ids.asset, scan_type: 'web_app' });
  const wrapped = await eventually(async () => receiver.received.find((d) => d.path === '/hec'), 120_000, 200);
  for (const key of ['event', 'sourcetype', 'source']) t.not(wrapped.body[key], undefined, key);
});

test.serial('rate limits: headers on every response, 429 with the spec\'s body, health exempt', async (t) => {
  const health = await fetch(`${server.url}/api/health`);
  t.is(health.status, 200);
  const answer = await call('GET', '/api/assets');
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.regex(answer.headers.get(header) ?? '', /^\d+$/, header);
  // A standard-tier tenant (burst 20): its token runs out after the burst.
  const admin = specClient(server.url, server.adminToken);
  const tenant = (await admin('POST', '/api/admin/tenants', { name: 'standard-tier', tier: 'standard' })).body.data;
  const token = (await admin('POST', `/api/admin/tenants/${tenant.id}/tokens`, { name: 'spec', scopes: ['assets:read'] })).body.data.token;
  const standard = specClient(server.url, token);
  let limited;
  for (let i = 0; i < 40 && !limited; i++) {
    const a = await standard('GET', '/api/assets');
    if (a.status === 429) limited = a;
  }
  t.truthy(limited, 'the burst of 20 runs out');
  t.like(limited!.body, { status: 'error', error: { code: 'rate_limited' } });
  t.is(typeof limited!.body.error.message, 'string');
  t.true(Number.isInteger(limited!.body.error.retry_after));
  t.regex(limited!.headers.get('retry-after') ?? '', /^\d+$/);
  t.is((await fetch(`${server.url}/api/health`)).status, 200, 'GET /api/health is exempt');
});
