import test from 'ava';
import { createAgentHandle } from '../../../core/agents/agent-handle.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp({ executors: { agent: { pollIntervalMs: 20, leaseMs: 5000 } } });
});

test.after.always(async () => {
  await t0?.close();
});

const countAgents = async (tenantId: string) => Number(((await t0.ctx.db('agents').where({ tenant_id: tenantId }).count({ n: '*' }).first()) as { n: number | string }).n);

function errorShape(t: any, res: { body: any }, status: number, code: string, got: number) {
  t.is(got, status);
  t.is(res.body.status, 'error');
  t.is(res.body.error.code, code);
}

test('register answers the token once; lists and gets never show it; only its hash is stored', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('POST', '/api/agents', { token, payload: { name: 'dc1-runner', labels: ['dc1', 'linux'] } });
  t.is(res.statusCode, 201);
  const data = res.body.data;
  t.regex(data.id, /^agt_/);
  t.regex(data.token, /^rmpa_[A-Za-z0-9_-]{43}$/);
  t.deepEqual(Object.keys(data).sort(), ['created_at', 'id', 'labels', 'name', 'token']);
  t.like(data, { name: 'dc1-runner', labels: ['dc1', 'linux'] });
  const got = await t0.request('GET', `/api/agents/${data.id}`, { token });
  t.is(got.statusCode, 200);
  t.like(got.body.data, { id: data.id, status: 'offline', last_seen_at: null, revoked_at: null });
  t.false(got.raw.includes(data.token.slice(12)));
  const list = await t0.request('GET', '/api/agents', { token });
  t.false(list.raw.includes(data.token.slice(12)));
  const row = await t0.ctx.db('agents').where({ id: data.id }).first();
  t.false(JSON.stringify(row).includes(data.token.slice(12)), 'only the hash is stored');
});

test('the agent token opens the agent routes only, and an API token never does; seen agents are online', async (t) => {
  const { token } = await t0.tenant();
  const created = (await t0.request('POST', '/api/agents', { token, payload: { name: 'a1' } })).body.data;
  const claim = await t0.request('POST', '/api/agent/jobs/claim', { token: created.token, payload: { wait_seconds: 0 } });
  t.is(claim.statusCode, 204);
  t.is((await t0.request('GET', `/api/agents/${created.id}`, { token })).body.data.status, 'online');
  const withApi = await t0.request('POST', '/api/agent/jobs/claim', { token, payload: { wait_seconds: 0 } });
  errorShape(t, withApi, 401, 'unauthorized', withApi.statusCode);
  const agentOnApi = await t0.request('GET', '/api/agents', { token: created.token });
  t.is(agentOnApi.statusCode, 401);
  const none = await t0.request('POST', '/api/agent/jobs/claim', { token: null, payload: {} });
  errorShape(t, none, 401, 'unauthorized', none.statusCode);
  const unknown = await t0.request('POST', '/api/agent/jobs/claim', { token: 'rmpa_nope', payload: {} });
  errorShape(t, unknown, 401, 'unauthorized', unknown.statusCode);
});

test('revoking stops the token at once (204) and shows revoked; revoking again is harmless', async (t) => {
  const { token } = await t0.tenant();
  const created = (await t0.request('POST', '/api/agents', { token, payload: { name: 'gone' } })).body.data;
  t.is((await t0.request('DELETE', `/api/agents/${created.id}`, { token })).statusCode, 204);
  const claim = await t0.request('POST', '/api/agent/jobs/claim', { token: created.token, payload: { wait_seconds: 0 } });
  errorShape(t, claim, 401, 'unauthorized', claim.statusCode);
  t.is((await t0.request('GET', `/api/agents/${created.id}`, { token })).body.data.status, 'revoked');
  t.is((await t0.request('DELETE', `/api/agents/${created.id}`, { token })).statusCode, 204);
});

test('scope integrations:manage is required; other tenants get 404', async (t) => {
  const owner = await t0.tenant();
  const created = (await t0.request('POST', '/api/agents', { token: owner.token, payload: { name: 'mine' } })).body.data;
  const reader = await t0.tenant({ scopes: ['actions:read', 'actions:execute'] });
  const denied = await t0.request('POST', '/api/agents', { token: reader.token, payload: { name: 'x' } });
  errorShape(t, denied, 403, 'insufficient_scope', denied.statusCode);
  t.is((await t0.request('GET', '/api/agents', { token: reader.token })).statusCode, 403);
  t.is(await countAgents(reader.tenantId), 0);
  const other = await t0.tenant();
  for (const [method, url] of [['GET', `/api/agents/${created.id}`], ['DELETE', `/api/agents/${created.id}`], ['GET', `/api/agents/${created.id}/jobs`]] as const) {
    const res = await t0.request(method, url, { token: other.token });
    errorShape(t, res, 404, 'not_found', res.statusCode);
  }
  t.is((await t0.request('GET', `/api/agents/${created.id}`, { token: owner.token })).body.data.revoked_at, null, 'the other tenant\'s DELETE did nothing');
});

test('bad input is a 400 with details (or 409 for a taken name) and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  await t0.request('POST', '/api/agents', { token, payload: { name: 'taken' } });
  for (const payload of [{ name: 'Has Space' }, { name: '' }, { name: 'x'.repeat(65) }, { name: 'ok', labels: ['BAD'] }, { name: 'ok', labels: ['a', 'a'] }, { name: 'ok', extra: 1 }, {}]) {
    const res = await t0.request('POST', '/api/agents', { token, payload });
    errorShape(t, res, 400, 'validation_failed', res.statusCode);
    t.true(Array.isArray(res.body.error.details), JSON.stringify(payload));
  }
  const dup = await t0.request('POST', '/api/agents', { token, payload: { name: 'taken' } });
  errorShape(t, dup, 409, 'agent_exists', dup.statusCode);
  t.is(await countAgents(tenantId), 1);
  t.is((await t0.request('GET', '/api/agents/agt_nope', { token })).statusCode, 400);
  t.is((await t0.request('GET', '/api/agents?per_page=101', { token })).statusCode, 400);
});

test('the protocol over HTTP: claim, start, logs, result; the job listing never shows parameters', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const created = (await t0.request('POST', '/api/agents', { token, payload: { name: 'worker', labels: ['edge'] } })).body.data;
  const lines: string[] = [];
  const handle = createAgentHandle(t0.ctx.services.agents, { tenantId, executionId: 'exe_ROUTETEST1', attempt: 1, sandbox: false, timeoutMs: 10_000, signal: new AbortController().signal, log: (l, m) => lines.push(`${l} ${m}`) });
  const done = handle.run({ target: 'edge', command: { kind: 'local', script: 'block-ip' }, params: { ip: '192.0.2.7', api_key: 'CANARY-PARAM-123' } });
  const claim = await t0.request('POST', '/api/agent/jobs/claim', { token: created.token, payload: { wait_seconds: 5 } });
  t.is(claim.statusCode, 200);
  const job = claim.body.data;
  t.like(job, { execution_id: 'exe_ROUTETEST1', attempt: 1, command: { kind: 'local', script: 'block-ip' }, params: { ip: '192.0.2.7' }, sandbox: false, lease_ms: 5000 });
  t.true(job.timeout_ms > 0 && job.timeout_ms <= 10_000);
  const notYet = await t0.request('POST', `/api/agent/jobs/${job.id}/logs`, { token: created.token, payload: { lines: [] } });
  errorShape(t, notYet, 409, 'job_not_running', notYet.statusCode);
  t.is((await t0.request('POST', `/api/agent/jobs/${job.id}/start`, { token: created.token })).statusCode, 200);
  const again = await t0.request('POST', `/api/agent/jobs/${job.id}/start`, { token: created.token });
  errorShape(t, again, 409, 'job_not_claimed', again.statusCode);
  const hb = await t0.request('POST', `/api/agent/jobs/${job.id}/logs`, { token: created.token, payload: { lines: [{ level: 'INFO', message: 'blocked' }] } });
  t.deepEqual(hb.body, { data: { cancel: false } });
  const tooMany = await t0.request('POST', `/api/agent/jobs/${job.id}/logs`, { token: created.token, payload: { lines: Array.from({ length: 501 }, () => ({ level: 'INFO', message: 'x' })) } });
  t.is(tooMany.statusCode, 400);
  const badResult = await t0.request('POST', `/api/agent/jobs/${job.id}/result`, { token: created.token, payload: { status: 'done', output: {} } });
  t.is(badResult.statusCode, 400);
  const listing = await t0.request('GET', `/api/agents/${created.id}/jobs`, { token });
  t.is(listing.statusCode, 200);
  t.like(listing.body.data[0], { id: job.id, execution_id: 'exe_ROUTETEST1', status: 'running', command: { kind: 'local', name: 'block-ip' } });
  t.false(listing.raw.includes('CANARY-PARAM-123'));
  t.false(listing.raw.includes('192.0.2.7'));
  const result = await t0.request('POST', `/api/agent/jobs/${job.id}/result`, { token: created.token, payload: { status: 'completed', output: { status: 'success' } } });
  t.is(result.statusCode, 200);
  t.like(await done, { status: 'completed', output: { status: 'success' } });
  await eventually(async () => lines.includes('INFO blocked'));
  const late = await t0.request('POST', `/api/agent/jobs/${job.id}/result`, { token: created.token, payload: { status: 'completed', output: {} } });
  errorShape(t, late, 409, 'job_finished', late.statusCode);
  const other = await t0.tenant();
  const stranger = (await t0.request('POST', '/api/agents', { token: other.token, payload: { name: 'worker' } })).body.data;
  const foreign = await t0.request('POST', `/api/agent/jobs/${job.id}/start`, { token: stranger.token });
  errorShape(t, foreign, 404, 'not_found', foreign.statusCode);
  const rows = await t0.ctx.db('agent_jobs').where({ id: job.id });
  t.false(JSON.stringify(rows).includes('CANARY-PARAM-123'), 'parameters are sealed at rest');
});
