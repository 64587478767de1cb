// The platform secrets canary (issue 16): distinctive secrets of every kind are planted —
// webhook signing secrets (and their rotation), webhook header values, a SIEM client key,
// scan callback secrets (given and generated), the bootstrap, API, login and agent tokens,
// user passwords, credentials with sandbox values, and plugin secret options — the platform
// is driven through its features and error paths, and every surface is searched for every
// canary in every encoding: 0 hits. The actions engine has its own canary
// (test/plugins/action-runs/secret-surfaces.test.ts, which runs every executor); this one
// covers everything around it. Seed: RAMPART_CANARY_SEED.
import test from 'ava';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../core/logger.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { seededRandom } from '../../_helpers/harness/seeded-random.ts';
import { createAsset, ENGINE_SCANNER, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { createTestApp, type InjectOptions, type InjectResult, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { openSse } from '../../_helpers/receivers/sse-client.ts';
import { startSyslogReceiver, type SyslogReceiver } from '../../_helpers/receivers/syslog-receiver.ts';
import { Canaries, canarySeed } from './canaries.ts';
import { databaseSurfaces } from './surfaces.ts';

const seed = canarySeed();
const canaries = new Canaries(seed);
const FIXTURE_SCANNER = fileURLToPath(new URL('../../fixtures/third-party-scanner', import.meta.url));

// Planted by the test: values the platform must never write anywhere readable.
const WEBHOOK_SECRET = canaries.make('webhook-secret', 'whsec');
const WEBHOOK_SECRET_ROTATED = canaries.make('webhook-secret-rotated', 'whsec');
const WEBHOOK_HEADER = canaries.make('webhook-header');
const WEBHOOK_HEADER_UPDATED = canaries.make('webhook-header-updated');
const CALLBACK_SECRET = canaries.make('callback-secret');
const USER_PASSWORD = canaries.make('user-password');
const WRONG_PASSWORD = canaries.make('wrong-password');
const BAD_TOKEN = canaries.make('bad-token', 'rmp');
const BAD_AGENT_TOKEN = canaries.make('bad-agent-token', 'rmpa');
const CREDENTIAL = canaries.make('credential');
const CREDENTIAL_SANDBOX = canaries.make('credential-sandbox');
const CREDENTIAL_ROTATED = canaries.make('credential-rotated');
// A PIN-like secret of 15 digits (exact as a JSON number), returned by a script as a number.
const CREDENTIAL_DIGITS = canaries.add('credential-digits', String(9e14 + Math.floor(seededRandom(seed)() * 9e13)));
const PLUGIN_API_KEY = canaries.make('plugin-api-key');
const SMTP_PASSWORD = canaries.make('smtp-password');
// Refused inputs: a secret in a request that fails validation must not come back in the error.
const REFUSED_SECRET = canaries.make('refused-secret');
const REFUSED_HEADER = canaries.make('refused-header');
const REFUSED_JSON = canaries.make('refused-json');
const REFUSED_PASSWORD = canaries.add('refused-password', `Cy${seed.toString(36).slice(-4)}!/+=x`);
const REFUSED_PEM_BODY = canaries.make('refused-pem');

/** The header the webhook's custom value travels in: the one place that value belongs. */
const HEADER_NAME = 'x-canary-key';

let app: TestApp;
let token: string;
let tenantId: string;
let hooks: HttpsReceiver;
let callbacks: HttpsReceiver;
let syslog: SyslogReceiver;
let pluginDir: string;
const responses: InjectResult[] = [];
/** What each response answered (`METHOD /path`), to name a leaking one. */
const requestsOf = new Map<InjectResult, string>();
const logs = new PassThrough();
let logText = '';
logs.on('data', (d: Buffer) => (logText += d.toString()));

async function call(method: string, url: string, options: InjectOptions = {}): Promise<InjectResult> {
  const res = await app.request(method, url, { token, ...options });
  responses.push(res);
  requestsOf.set(res, `${method} ${url}`);
  return res;
}

async function rawCall(method: string, url: string, headers: Record<string, string>, payload: string): Promise<InjectResult> {
  const res = await app.server.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, payload });
  const out: InjectResult = { statusCode: res.statusCode, headers: res.headers as InjectResult['headers'], body: null, raw: res.payload };
  responses.push(out);
  requestsOf.set(out, `${method} ${url} (raw body)`);
  return out;
}

test.before(async () => {
  console.log(`secrets canary seed ${seed} (RAMPART_CANARY_SEED=${seed} reproduces it)`);
  const { ca } = await sharedTestCertificates();
  const client = await ca.issue({ usages: ['client'], commonName: 'rampart-siem-client' });
  const der = Buffer.from(client.keyPem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
  const bodyLines = client.keyPem.split('\n').filter((l) => l && !l.startsWith('-----'));
  canaries.add('siem-client-key', client.keyPem, [...bodyLines.filter((l) => l.length >= 40), der.toString('base64'), der.toString('base64url'), der.toString('hex')]);
  siemKey = client;
  hooks = await startHttpsReceiver();
  callbacks = await startHttpsReceiver();
  syslog = await startSyslogReceiver({ tls: { cert: (await sharedTestCertificates()).server.chainPem, key: (await sharedTestCertificates()).server.keyPem, requestCert: true, rejectUnauthorized: true, ca: ca.certPem } });
  pluginDir = mkdtempSync(join(tmpdir(), 'rampart-canary-plugins-'));
  mkdirSync(join(pluginDir, 'node_modules'));
  cpSync(FIXTURE_SCANNER, join(pluginDir, 'node_modules', 'rampart-scanner-fixture'), { recursive: true });
  app = await createTestApp(
    {
      log: { level: 'trace' },
      outbound: { caCerts: [ca.certPem] },
      plugins: {
        builtin: ['local', 'script', 'webhook', 'remote', 'notification', 'agent', 'cef', 'rfc5424'],
        builtinOptions: { notification: { smtp: { host: '127.0.0.1', port: 2525, secure: false, user: 'rampart', password: SMTP_PASSWORD, from: 'rampart@example.com' } } },
        baseDir: pluginDir,
        external: [
          { module: 'rampart-scanner-fixture', capabilities: ['net:outbound'], options: { port: 22, api_key: PLUGIN_API_KEY } },
          { module: ENGINE_SCANNER, capabilities: [], options: {} },
        ],
      },
    },
    { logger: createLogger('trace', logs) },
  );
  canaries.add('bootstrap-admin-token', app.adminToken);
  await app.app.start();
  ({ token, tenantId } = await app.tenant());
  canaries.add('tenant-api-token', token);
});

let siemKey: { certPem: string; keyPem: string };

test.after.always(async () => {
  await app?.close();
  await hooks?.close();
  await callbacks?.close();
  await syslog?.stop();
  if (pluginDir) rmSync(pluginDir, { recursive: true, force: true });
});

test.serial('no form of any planted secret reaches a response, log line, database row, delivery, SIEM frame or SSE message', async (t) => {
  t.timeout(90_000);
  t.log(`seed ${seed}; ${canaries.list.length} canaries planted before the run`);
  const { ca } = await sharedTestCertificates();
  const sse = await openSse(`${app.server.info.uri}/api/events/stream`, { authorization: `Bearer ${token}` });
  t.is(sse.statusCode, 200);

  // Webhooks: a signing secret and a header value, updated, rotated, tested, delivered; the
  // first real delivery is refused (503 echoing nothing) so a retry and its attempt log happen.
  hooks.respond((_req, i) => (i === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' }));
  const hook = await call('POST', '/api/webhooks', { payload: { name: 'canary', url: `${hooks.origin}/hook`, events: ['*'], secret: WEBHOOK_SECRET, headers: { 'X-Canary-Key': WEBHOOK_HEADER } } });
  t.is(hook.statusCode, 201, hook.raw);
  const hookId = hook.body.data.id as string;
  t.is((await call('PUT', `/api/webhooks/${hookId}`, { payload: { headers: { 'X-Canary-Key': WEBHOOK_HEADER_UPDATED } } })).statusCode, 200);
  t.is((await call('POST', `/api/webhooks/${hookId}/rotate-secret`, { payload: { secret: WEBHOOK_SECRET_ROTATED, grace_period_seconds: 3600 } })).statusCode, 200);
  t.is((await call('POST', `/api/webhooks/${hookId}/test`)).statusCode, 200);
  await call('GET', `/api/webhooks/${hookId}`);
  await call('GET', '/api/webhooks');

  // SIEM: mutual TLS with a client key, forwarding to a strict loopback collector.
  const siem = await call('POST', '/api/integrations/siem', {
    payload: { name: 'soc', type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: syslog.port, format: 'rfc5424', events: ['finding.new', 'scan.completed', 'system.alert'], tls: { ca: ca.certPem, cert: siemKey.certPem, key: siemKey.keyPem, server_name: 'localhost' } },
  });
  t.is(siem.statusCode, 201, siem.raw);
  await call('POST', `/api/integrations/siem/${siem.body.data.id}/test`);
  await call('GET', `/api/integrations/siem/${siem.body.data.id}`);

  // Credentials with sandbox values, rotated.
  t.is((await call('POST', '/api/credentials', { payload: { name: 'canary-key', value: CREDENTIAL, sandbox_value: CREDENTIAL_SANDBOX } })).statusCode, 201);
  t.is((await call('PUT', '/api/credentials/canary-key', { payload: { value: CREDENTIAL_ROTATED } })).statusCode, 200);
  await call('GET', '/api/credentials/canary-key');
  await call('GET', '/api/credentials');
  // The credential flows through a run, a sandbox run and a playbook run and its CACAO
  // export (every executor's own leaks are secret-surfaces.test.ts's job). The script
  // returns only the value's last four characters: proof the right value arrived.
  const action = await call('POST', '/api/actions', {
    payload: { name: 'canary-script', type: 'script', executor: 'local', config: { source: "log('INFO', 'using the key'); return { tail: params.key.slice(-4) };" }, parameters: [{ name: 'key', type: 'secret', required: true, credential: 'canary-key' }] },
  });
  t.is(action.statusCode, 201, action.raw);
  const runIds: string[] = [];
  for (const sandbox of [false, true]) {
    const run = await call('POST', `/api/actions/${action.body.data.id}/execute`, { payload: { parameters: {}, sandbox } });
    t.true([200, 202].includes(run.statusCode), run.raw);
    runIds.push(run.body.data.execution_id);
  }
  const playbook = await call('POST', '/api/playbooks', {
    payload: { name: 'canary-playbook', version: '1.0.0', trigger: { event: 'manual' }, steps: [{ id: 'use', type: 'action', action_ref: 'canary-script', parameters: {} }] },
  });
  t.is(playbook.statusCode, 201, playbook.raw);
  const pbRun = await call('POST', `/api/playbooks/${playbook.body.data.id}/run`, { payload: {} });
  t.is(pbRun.statusCode, 202, pbRun.raw);
  const runs = await eventually(async () => {
    const views = await Promise.all(runIds.map((id) => call('GET', `/api/actions/executions/${id}`)));
    return views.every((v) => v.body.data.status === 'completed') ? views : undefined;
  }, 30_000);
  t.deepEqual(runs.map((v) => v.body.data.output.result.tail), [CREDENTIAL_ROTATED.slice(-4), CREDENTIAL_SANDBOX.slice(-4)], 'the rotated value in production, the sandbox value in the sandbox');
  await eventually(async () => ((await call('GET', `/api/playbooks/executions/${pbRun.body.data.execution_id}`)).body.data.status === 'completed' ? true : undefined), 30_000);
  await call('GET', `/api/playbooks/executions/${pbRun.body.data.execution_id}/steps`);
  t.is((await call('GET', `/api/playbooks/${playbook.body.data.id}/export`)).statusCode, 200);
  await call('GET', `/api/actions/${action.body.data.id}/runs`);
  // Two plain forms a scrubber could miss: the digits secret as a number, and the key nested 70 levels deep.
  t.is((await call('POST', '/api/credentials', { payload: { name: 'canary-digits', value: CREDENTIAL_DIGITS } })).statusCode, 201);
  const forms = await call('POST', '/api/actions', {
    payload: {
      name: 'canary-forms', type: 'script', executor: 'local',
      config: { source: 'let deep = { key: params.key }; for (let i = 0; i < 70; i++) deep = { d: deep }; return { pin: Number(params.pin), negative: -Number(params.pin), deep };' },
      parameters: [{ name: 'key', type: 'secret', required: true, credential: 'canary-key' }, { name: 'pin', type: 'secret', required: true, credential: 'canary-digits' }],
    },
  });
  t.is(forms.statusCode, 201, forms.raw);
  const formsRun = await call('POST', `/api/actions/${forms.body.data.id}/execute`, { payload: { parameters: {} } });
  const formsDone = await eventually(async () => {
    const view = await call('GET', `/api/actions/executions/${formsRun.body.data.execution_id}`);
    return view.body.data.status === 'completed' ? view.body.data : undefined;
  }, 30_000);
  t.is(formsDone.output.result.pin, '********', 'a number whose digits are a secret is masked');
  t.is(JSON.stringify(formsDone.output.result.deep).includes('"d"'), true, 'the shallow part of the nesting is kept');
  const formsPlaybook = await call('POST', '/api/playbooks', {
    payload: { name: 'canary-forms-playbook', version: '1.0.0', trigger: { event: 'manual' }, steps: [{ id: 'forms', type: 'action', action_ref: 'canary-forms', parameters: {} }] },
  });
  const formsPbRun = await call('POST', `/api/playbooks/${formsPlaybook.body.data.id}/run`, { payload: {} });
  await eventually(async () => ((await call('GET', `/api/playbooks/executions/${formsPbRun.body.data.execution_id}`)).body.data.status === 'completed' ? true : undefined), 30_000);
  await call('GET', `/api/playbooks/executions/${formsPbRun.body.data.execution_id}/steps`);
  await call('GET', `/api/actions/${forms.body.data.id}/runs`);

  // Scans with callbacks: one secret given, one generated (shown once in its create response).
  const assetA = await createAsset(app, '192.0.2.70', 'ip', token);
  const assetB = await createAsset(app, '192.0.2.71', 'ip', token);
  const given = await call('POST', '/api/scan/create', { payload: { asset_id: assetA, scan_type: 'web_app', callback_url: `${callbacks.origin}/given`, callback_secret: CALLBACK_SECRET } });
  t.is(given.statusCode, 201, given.raw);
  const generated = await call('POST', '/api/scan/create', { payload: { asset_id: assetB, scan_type: 'web_app', callback_url: `${callbacks.origin}/generated` } });
  t.is(generated.statusCode, 201, generated.raw);
  const generatedSecret = generated.body.data.callback_secret as string;
  canaries.add('generated-callback-secret', generatedSecret);
  canaries.shownOnce(generatedSecret, generated); // the create response is the one place it is shown
  for (const id of [given.body.data.scan_id, generated.body.data.scan_id]) {
    t.is((await waitForScan(app, id, undefined, 30_000, token)).status, 'completed');
    await call('GET', `/api/scan/${id}`);
    await call('GET', `/api/scan/${id}/results`);
  }
  await call('GET', '/api/scans');
  await callbacks.waitFor(2, 20_000);

  // Findings, exports (all three formats, downloaded).
  await call('GET', '/api/findings');
  for (const format of ['csv', 'json', 'pdf']) {
    const exp = await call('POST', '/api/findings/export', { payload: { format } });
    t.true([200, 202].includes(exp.statusCode), exp.raw);
    if (exp.statusCode === 202) {
      const id = exp.body.data.id as string;
      await eventually(async () => ((await call('GET', `/api/findings/exports/${id}`)).body.data.status === 'completed' ? true : undefined), 20_000);
      t.is((await call('GET', `/api/findings/exports/${id}/download`)).statusCode, 200);
    }
  }

  // Users and passwords: a login token (shown once), wrong passwords, unknown emails, logout.
  const email = `canary-${seed}@example.com`;
  const user = await call('POST', `/api/admin/tenants/${tenantId}/users`, { token: app.adminToken, payload: { email, password: USER_PASSWORD, scopes: ['findings:read', 'events:read'] } });
  t.is(user.statusCode, 201, user.raw);
  await call('GET', `/api/admin/tenants/${tenantId}/users`, { token: app.adminToken });
  t.is((await call('POST', '/api/user/auth/login', { token: null, payload: { email, password: WRONG_PASSWORD } })).statusCode, 401);
  t.is((await call('POST', '/api/user/auth/login', { token: null, payload: { email: `nobody-${seed}@example.com`, password: USER_PASSWORD } })).statusCode, 401);
  const login = await call('POST', '/api/user/auth/login', { token: null, payload: { email, password: USER_PASSWORD } });
  t.is(login.statusCode, 200, login.raw);
  const loginToken = canaries.add('login-token', login.body.data.token as string);
  canaries.shownOnce(loginToken, login);
  t.is((await call('GET', '/api/user/me', { token: loginToken })).statusCode, 200);
  // The event stream takes ?token= (browsers' EventSource): the query must never be logged.
  const viaQuery = await openSse(`${app.server.info.uri}/api/events/stream?token=${encodeURIComponent(loginToken)}`);
  t.is(viaQuery.statusCode, 200);
  viaQuery.close();
  const badQuery = await openSse(`${app.server.info.uri}/api/events/stream?token=${encodeURIComponent(BAD_TOKEN)}`);
  t.is(badQuery.statusCode, 401);
  responses.push({ statusCode: badQuery.statusCode, headers: {}, body: null, raw: await badQuery.body });
  t.is((await call('POST', '/api/user/auth/logout', { token: loginToken })).statusCode, 204);
  t.is((await call('GET', '/api/user/me', { token: loginToken })).statusCode, 401);

  // API tokens: issued (shown once), used, revoked, then refused; an unknown token refused.
  const issued = await call('POST', `/api/admin/tenants/${tenantId}/tokens`, { token: app.adminToken, payload: { name: 'canary', scopes: ['assets:read'] } });
  t.is(issued.statusCode, 201, issued.raw);
  const apiToken = canaries.add('issued-api-token', issued.body.data.token as string);
  canaries.shownOnce(apiToken, issued);
  t.is((await call('GET', '/api/assets', { token: apiToken })).statusCode, 200);
  t.is((await call('GET', '/api/webhooks', { token: apiToken })).statusCode, 403);
  await call('GET', `/api/admin/tenants/${tenantId}/tokens`, { token: app.adminToken });
  t.is((await call('DELETE', `/api/admin/tokens/${issued.body.data.id}`, { token: app.adminToken })).statusCode, 200);
  t.is((await call('GET', '/api/assets', { token: apiToken })).statusCode, 401);
  t.is((await call('GET', '/api/assets', { token: BAD_TOKEN })).statusCode, 401);

  // Agent tokens: registered (shown once), used on the agent protocol, refused elsewhere, revoked.
  const agent = await call('POST', '/api/agents', { payload: { name: 'canary-agent', labels: ['canary'] } });
  t.is(agent.statusCode, 201, agent.raw);
  const agentToken = canaries.add('agent-token', agent.body.data.token as string);
  canaries.shownOnce(agentToken, agent);
  t.is((await call('POST', '/api/agent/jobs/claim', { token: agentToken, payload: { wait_seconds: 0 } })).statusCode, 204);
  t.is((await call('GET', '/api/assets', { token: agentToken })).statusCode, 401);
  t.is((await call('POST', '/api/agent/jobs/claim', { token: BAD_AGENT_TOKEN, payload: { wait_seconds: 0 } })).statusCode, 401);
  await call('GET', `/api/agents/${agent.body.data.id}`);
  t.is((await call('DELETE', `/api/agents/${agent.body.data.id}`)).statusCode, 204);
  t.is((await call('POST', '/api/agent/jobs/claim', { token: agentToken, payload: { wait_seconds: 0 } })).statusCode, 401);

  // Plugin secret options are redacted in the plugin list.
  const plugins = await call('GET', '/api/plugins');
  t.is(plugins.statusCode, 200);
  t.true(plugins.raw.includes('[redacted]'), 'the secret options are listed, redacted');

  // Refused inputs carrying secrets: validation errors must not echo the value.
  const refusals: Array<[string, string, unknown]> = [
    ['POST', '/api/webhooks', { name: 'bad', url: `${hooks.origin}/x`, events: ['*'], secret: `${REFUSED_SECRET} with spaces` }],
    ['POST', '/api/webhooks', { name: 'bad', url: `${hooks.origin}/x`, events: ['*'], headers: { 'X-Canary-Key': `${REFUSED_HEADER}\r\nX-Injected: 1` } }],
    ['POST', `/api/webhooks/${hookId}/rotate-secret`, { secret: `${REFUSED_SECRET}\u0000` }],
    ['POST', '/api/credentials', { name: 'bad name!', value: REFUSED_SECRET }],
    ['POST', '/api/credentials', { name: 'too-long', value: REFUSED_SECRET.repeat(3000) }],
    ['POST', '/api/scan/create', { asset_id: assetA, scan_type: 'web_app', callback_url: 'https://169.254.169.254/x', callback_secret: REFUSED_SECRET }],
    ['POST', '/api/integrations/siem', { name: 'bad', host: '127.0.0.1', port: syslog.port, format: 'cef', events: ['system.alert'], tls: { ca: ca.certPem, cert: siemKey.certPem, key: `-----BEGIN PRIVATE KEY-----\n${Buffer.from(REFUSED_PEM_BODY).toString('base64')}\n-----END PRIVATE KEY-----\n` } }],
    ['POST', '/api/integrations/siem', { name: 'bad', host: '127.0.0.1', port: syslog.port, format: 'cef', events: ['system.alert'], tls: { key: siemKey.keyPem } }],
  ];
  for (const [method, url, payload] of refusals) {
    const res = await call(method, url, { payload });
    t.true(res.statusCode >= 400 && res.statusCode < 500, `${method} ${url}: ${res.raw}`);
  }
  canaries.add('refused-pem-base64', Buffer.from(REFUSED_PEM_BODY).toString('base64'));
  const shortPassword = await call('POST', `/api/admin/tenants/${tenantId}/users`, { token: app.adminToken, payload: { email: `short-${seed}@example.com`, password: REFUSED_PASSWORD, scopes: ['findings:read'] } });
  t.is(shortPassword.statusCode, 400, shortPassword.raw);
  // Malformed JSON: the parser's message quotes the body it choked on.
  const broken = await rawCall('POST', '/api/credentials', { 'content-type': 'application/json' }, `{"name":"broken","value":"${REFUSED_JSON}`);
  t.is(broken.statusCode, 400, broken.raw);
  const broken2 = await rawCall('POST', '/api/credentials', { 'content-type': 'application/json' }, `{"name":"broken","value":${REFUSED_JSON}}`);
  t.is(broken2.statusCode, 400, broken2.raw);
  const wrongType = await rawCall('POST', '/api/credentials', { 'content-type': 'text/plain' }, REFUSED_JSON);
  t.true(wrongType.statusCode >= 400 && wrongType.statusCode < 500, wrongType.raw);

  // Everything has gone out: deliveries (with their retries over), SIEM frames, SSE messages.
  await eventually(async () => (syslog.frames.length > 0 ? true : undefined), 20_000);
  await eventually(async () => {
    const list = await call('GET', `/api/webhooks/${hookId}/deliveries?per_page=100`);
    return list.body.data.length > 0 && list.body.data.every((d: { status: string }) => d.status === 'delivered') ? true : undefined;
  }, 30_000);
  const deliveries = (await call('GET', `/api/webhooks/${hookId}/deliveries?per_page=100`)).body.data as Array<{ id: string }>;
  for (const d of deliveries.slice(0, 5)) await call('GET', `/api/webhooks/${hookId}/deliveries/${d.id}`);
  await sse.waitFor((m) => m.some((x) => x.event === 'scan.completed'), 10_000).catch(() => undefined);
  sse.close();

  // The header value travels in its own header to its own receiver, and nowhere else.
  t.true(hooks.requests.length > 0);
  t.true(hooks.requests.every((r) => [WEBHOOK_HEADER, WEBHOOK_HEADER_UPDATED].includes(String(r.headers[HEADER_NAME]))), 'every delivery carried the custom header');
  t.true(hooks.requests.some((r) => r.headers[HEADER_NAME] === WEBHOOK_HEADER_UPDATED), 'the updated header value was used');
  const withoutOwnHeader = hooks.requests.map((r) => {
    const { [HEADER_NAME]: _own, ...rest } = r.headers;
    return `${r.method} ${r.path} ${JSON.stringify(rest)}\n${r.body}`;
  });

  // Every shown-once secret really was in its one response (else the exclusion would hide nothing).
  for (const c of canaries.list.filter((x) => x.shownOnceIn)) t.true((c.shownOnceIn as InjectResult).raw.includes(c.value), `${c.name} is shown in its creation response`);

  const surfaces: Record<string, string> = {
    webhook_deliveries: withoutOwnHeader.join('\n'),
    scan_callbacks: callbacks.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.headers)}\n${r.body}`).join('\n'),
    siem_frames: syslog.frames.map((f) => f.raw).join('\n') + syslog.errors.join('\n'),
    sse: [...sse.messages, ...viaQuery.messages].map((m) => `${m.event} ${m.id} ${m.data}`).join('\n'),
    server_log: logText,
  };
  responses.forEach((r, i) => (surfaces[`response:${i} ${requestsOf.get(r) ?? 'GET /api/events/stream?token=<bad>'}`] = `${r.statusCode} ${JSON.stringify(r.headers)}\n${r.raw}`));
  const db = await databaseSurfaces(app);
  Object.assign(surfaces, db.surfaces);

  // The surfaces were really watched, and the planted values really reached the platform.
  t.true(syslog.frames.length > 0 && sse.messages.length > 0 && callbacks.requests.length >= 2 && logText.length > 0 && db.rows > 0);
  t.deepEqual(syslog.errors, []);
  t.true(logText.split('\n').filter((l) => l.includes('"msg":"request"')).length >= responses.length / 2, 'every request was logged');

  const hits: Record<string, string[]> = {};
  for (const [surface, text] of Object.entries(surfaces)) {
    const response = surface.startsWith('response:') ? responses[Number(/^response:(\d+)/.exec(surface)![1])] : undefined;
    const found = canaries.hitsIn(text, response);
    if (found.length) hits[surface] = found;
  }
  t.deepEqual(hits, {}, 'surfaces holding a form of a canary secret');
  t.log(`${canaries.list.length} canaries × their forms searched in ${responses.length} responses, ${db.rows} rows of ${Object.keys(db.surfaces).length} tables, ${hooks.requests.length} deliveries, ${callbacks.requests.length} callbacks, ${syslog.frames.length} SIEM frames, ${sse.messages.length + viaQuery.messages.length} SSE messages, ${logText.split('\n').length} log lines`);
});
