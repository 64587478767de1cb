import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';

const PROD = 'prod-Secret-value-8817!';
const SANDBOX = 'sandbox-secret-value-42';

let app: TestApp;
let token: string;
let production: HttpsReceiver;
let standIn: HttpsReceiver;
let actionId: string;
let definitionId: string;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  app = await createTestApp({ outbound: { caCerts: [ca.certPem] }, executors: { executeWaitMs: 10000, pollIntervalMs: 20 } });
  token = (await app.tenant()).token;
  production = await startHttpsReceiver();
  standIn = await startHttpsReceiver();
  production.respond(() => ({ status: 200, body: '{"blocked":true}' }));
  standIn.respond(() => ({ status: 202, body: '{"stand_in":true}' }));
  await app.request('POST', '/api/credentials', { token, payload: { name: 'fw_token', value: PROD, sandbox_value: SANDBOX } });
  const parameters = [{ name: 'ip', type: 'string', required: true }, { name: 'fw_token', type: 'secret', required: true }];
  const config = { url: `${production.origin}/block/{{ ip }}`, method: 'POST', headers: { authorization: 'Bearer {{ fw_token }}' }, body_template: '{"ip": "{{ ip }}"}' };
  actionId = (await app.request('POST', '/api/actions', { token, payload: { name: 'fw-block', type: 'webhook', executor: 'webhook', config, parameters } })).body.data.id;
  const def = await app.request('POST', '/api/actions/definitions', {
    token,
    payload: { name: 'fw-contain', version: '1.0.0', type: 'containment', executor: { type: 'remote', target: `${production.origin}/contain`, method: 'POST' }, parameters, timeout_seconds: 30 },
  });
  definitionId = def.body.id;
  app.ctx.background.actions.start();
});

test.after.always(async () => {
  await app.ctx.background.actions.stop();
  await app.close();
  await production.close();
  await standIn.close();
});

const execute = async (id: string, payload: Record<string, unknown>) => app.request('POST', `/api/actions/${id}/execute`, { token, payload });

test.serial('a production run reaches the real endpoint with the production credential', async (t) => {
  const before = production.requests.length;
  const res = await execute(actionId, { parameters: { ip: '203.0.113.5' } });
  t.is(res.statusCode, 200, res.raw);
  t.is(res.body.data.status, 'completed');
  t.is(production.requests.length, before + 1);
  const got = production.requests.at(-1)!;
  t.is(got.path, '/block/203.0.113.5');
  t.is(got.headers.authorization, `Bearer ${PROD}`);
  t.deepEqual(JSON.parse(got.body), { ip: '203.0.113.5' });
  t.false(res.raw.includes(PROD));
});

test.serial('a sandbox run without a stand-in sends nothing: it is recorded and answered with the canned response', async (t) => {
  app.ctx.config.executors.sandbox.httpTarget = null;
  const before = production.requests.length;
  const res = await execute(actionId, { parameters: { ip: '203.0.113.6' }, sandbox: true });
  t.is(res.body.data.status, 'completed', res.raw);
  t.true(res.body.data.sandbox);
  t.deepEqual(res.body.data.output.body, { sandbox: true });
  t.is(production.requests.length, before, 'production never contacted');
  t.truthy(res.body.data.logs.find((l: { message: string }) => /recorded, not sent/.test(l.message)));
});

test.serial('a sandbox run with executors.sandbox.httpTarget goes to the stand-in with the sandbox credential; a disabled definition may run there only', async (t) => {
  app.ctx.config.executors.sandbox.httpTarget = `${standIn.origin}/sandbox`;
  t.teardown(() => (app.ctx.config.executors.sandbox.httpTarget = null));
  const before = production.requests.length;
  const refused = await execute(definitionId, { parameters: { ip: '203.0.113.7' } });
  t.is(refused.statusCode, 409);
  t.is(refused.body.error.code, 'action_disabled');
  const res = await execute(definitionId, { parameters: { ip: '203.0.113.7' }, sandbox: true });
  t.is(res.body.data.status, 'completed', res.raw);
  t.deepEqual(res.body.data.output, { stand_in: true });
  const got = standIn.requests.at(-1)!;
  t.is(got.path, '/sandbox/contain');
  t.is(got.headers['x-rampart-original-url'], `${production.origin}/contain`);
  t.deepEqual(JSON.parse(got.body), { ip: '203.0.113.7', fw_token: SANDBOX }, 'the sandbox value, never the production one');
  t.is(production.requests.length, before);
  t.false(res.raw.includes(SANDBOX), 'sandbox values are secrets too');
});

test.serial('a sandbox run of an action whose credential has no sandbox value is refused before anything is queued', async (t) => {
  await app.request('POST', '/api/credentials', { token, payload: { name: 'prod_only', value: 'only-for-production-1' } });
  const created = await app.request('POST', '/api/actions', {
    token,
    payload: { name: 'prod-only', type: 'webhook', executor: 'webhook', config: { url: `${production.origin}/x`, method: 'POST', headers: { 'x-key': '{{ prod_only }}' }, body_template: '{}' }, parameters: [{ name: 'prod_only', type: 'secret', required: true }] },
  });
  const res = await app.request('POST', `/api/actions/${created.body.data.id}/trigger`, { token, payload: { parameters: {}, sandbox: true } });
  t.is(res.statusCode, 400);
  t.is(res.body.error.code, 'sandbox_credential_missing');
});
