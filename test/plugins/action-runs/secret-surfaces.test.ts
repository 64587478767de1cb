// The secret canary test of the actions issue: canary credentials are planted, every
// executor runs (and one deliberately prints its secret raw and base64-encoded), and
// every surface a secret could leak to is searched for every form of every canary:
// API responses, every database row, SSE messages, delivered webhook bodies, server log
// lines, process argument lists and the agent's job listing.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../../core/logger.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { ROOT, SOURCE_NODE_ARGS } from '../../_helpers/harness/spawn-service.ts';
import { createTestApp, type InjectResult, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { openSse } from '../../_helpers/receivers/sse-client.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../../executors/_lib/smtp-receiver.ts';

const CANARY = 'Canary-prod-Zq8!x/y+W=7Lm';
const SANDBOX_CANARY = 'Canary-sbox-Rt5?k/j+P=2Hn';

/** Every form the scrubber promises to catch, plus base64 cores at other alignments. */
function forms(secret: string): string[] {
  const b = Buffer.from(secret);
  const out = [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  for (const pre of ['a', 'ab']) out.push(Buffer.from(pre + secret).toString('base64').slice(4, 24));
  return out;
}
const ALL_FORMS = [...forms(CANARY), ...forms(SANDBOX_CANARY)];
const leaksIn = (text: string) => ALL_FORMS.filter((f) => text.includes(f));

const dir = mkdtempSync(join(tmpdir(), 'rampart-canary-'));
const scripts = join(dir, 'scripts');
const agentScripts = join(dir, 'agent-scripts');
const responses: InjectResult[] = [];
const logs = new PassThrough();
let logText = '';
logs.on('data', (d: Buffer) => (logText += d.toString()));

// Prints the secret raw and base64 on stderr, hex in its output, then fails with it in the error.
const leaky = `#!${process.execPath}
const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const fs = require('fs');
for (const pid of fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) { try { fs.appendFileSync(${JSON.stringify(join(dir, 'cmdlines'))}, fs.readFileSync('/proc/' + pid + '/cmdline') + '\\n'); } catch {} }
console.error('raw ' + p.key);
console.error('b64 ' + Buffer.from(p.key).toString('base64'));
process.stdout.write(JSON.stringify(p.fail ? { status: 'error', error: { code: 'leak', message: 'bad ' + p.key } } : { status: 'success', data: { hex: Buffer.from(p.key).toString('hex') } }));
`;

let app: TestApp;
let token: string;
let echo: HttpsReceiver;
let hooks: HttpsReceiver;
let smtp: SmtpReceiver;
let agent: ChildProcess | undefined;

async function call(method: string, url: string, payload?: unknown): Promise<InjectResult> {
  const res = await app.request(method, url, { token, payload });
  responses.push(res);
  return res;
}

test.before(async () => {
  for (const d of [scripts, agentScripts]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'leaky'), leaky);
    chmodSync(join(d, 'leaky'), 0o755);
  }
  const { ca } = await sharedTestCertificates();
  echo = await startHttpsReceiver();
  // Answers with everything it was sent: headers and body come back as the output.
  echo.respond((req) => ({ status: 200, body: JSON.stringify({ headers: req.headers, body: req.body }) }));
  hooks = await startHttpsReceiver();
  smtp = await startSmtpReceiver();
  app = await createTestApp(
    {
      log: { level: 'trace' },
      outbound: { caCerts: [ca.certPem] },
      executors: { pollIntervalMs: 20, executeWaitMs: 20000, local: { scriptsDir: scripts }, notification: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'rampart@example.com' } }, agent: { pollIntervalMs: 20 } },
    },
    { logger: createLogger('trace', logs) },
  );
  await app.app.start();
  ({ token } = await app.tenant());
});

test.after.always(async () => {
  agent?.kill('SIGKILL');
  await app?.close();
  await echo?.close();
  await hooks?.close();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

test.serial('no form of a canary secret reaches any surface while every executor runs, fails and dry-runs', async (t) => {
  t.timeout(120_000);
  await call('POST', '/api/credentials', { name: 'key', value: CANARY, sandbox_value: SANDBOX_CANARY });
  const hook = await call('POST', '/api/webhooks', { name: 'all-actions', url: `${hooks.origin}/hook`, events: ['action.triggered', 'action.completed', 'action.failed'] });
  t.is(hook.statusCode, 201, hook.raw);
  const sse = await openSse(`${app.server.info.uri}/api/events/stream`, { authorization: `Bearer ${token}` });
  const secret = { name: 'key', type: 'secret', required: true };
  const fail = { name: 'fail', type: 'boolean', required: false, default: false };
  const actions: Array<Record<string, unknown>> = [
    { name: 'local-leaky', type: 'remediation', executor: 'local', config: { target: 'leaky' }, parameters: [secret, fail] },
    { name: 'script-leaky', type: 'script', executor: 'local', config: { source: "log('INFO', 'key ' + params.key); return { raw: params.key, url: encodeURIComponent(params.key), json: JSON.stringify({ k: params.key }) };" }, parameters: [secret] },
    { name: 'webhook-echo', type: 'webhook', executor: 'webhook', config: { url: `${echo.origin}/w`, method: 'POST', headers: { authorization: 'Bearer {{ key }}' }, body_template: '{"k": "{{ key }}"}' }, parameters: [secret] },
    { name: 'remote-echo', type: 'remediation', executor: 'remote', config: { target: `${echo.origin}/r`, method: 'POST' }, parameters: [secret] },
    { name: 'mail', type: 'notification', executor: 'local', config: { channel: 'email', to: ['soc@example.com'], subject: 'Alert', body_template: 'the key is {{ key }}' }, parameters: [secret] },
    { name: 'chat-echo', type: 'notification', executor: 'local', config: { channel: 'chat', url: `${echo.origin}/chat`, text_template: 'key {{ key }}' }, parameters: [secret] },
    { name: 'agent-leaky', type: 'remediation', executor: 'agent', config: { target: 'site-a', script: 'leaky' }, parameters: [secret, fail] },
  ];
  const ids: Record<string, string> = {};
  for (const a of actions) {
    const res = await call('POST', '/api/actions', a);
    t.is(res.statusCode, 201, res.raw);
    ids[a.name as string] = res.body.data.id;
  }
  const registered = await call('POST', '/api/agents', { name: 'site-a-agent', labels: ['site-a'] });
  t.is(registered.statusCode, 201, registered.raw);
  agent = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'agent/main.ts', '--url', app.server.info.uri, '--scripts-dir', agentScripts, '--wait-seconds', '1'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RAMPART_AGENT_TOKEN: registered.body.data.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let agentOut = '';
  agent.stdout!.on('data', (d: Buffer) => (agentOut += d.toString()));
  agent.stderr!.on('data', (d: Buffer) => (agentOut += d.toString()));

  const runs: string[] = [];
  for (const [name, id] of Object.entries(ids)) {
    for (const variant of [{}, { sandbox: true }, { dry_run: true }, ...(name.endsWith('leaky') && name !== 'script-leaky' ? [{ parameters: { fail: true } }] : [])]) {
      const res = await call('POST', `/api/actions/${id}/execute`, { parameters: {}, ...variant });
      t.true([200, 202].includes(res.statusCode), `${name} ${JSON.stringify(variant)}: ${res.raw}`);
      runs.push(res.body.data.execution_id);
    }
  }
  const finished = await eventually(async () => {
    const views = await Promise.all(runs.map((id) => call('GET', `/api/actions/executions/${id}`)));
    return views.every((v) => ['completed', 'failed', 'timed_out'].includes(v.body.data.status)) ? views : undefined;
  }, 60_000);
  // Each executor really ran with the real value: the leaky ones said so (masked), the echo receiver got it.
  const local = finished.find((v) => v.body.data.action_name === 'local-leaky' && v.body.data.status === 'completed' && !v.body.data.sandbox)!.body.data;
  t.truthy(local.logs.find((l: { message: string }) => l.message === 'raw ********'));
  t.truthy(local.logs.find((l: { message: string }) => l.message === 'b64 ********'));
  t.true(echo.requests.some((r) => r.headers.authorization === `Bearer ${CANARY}`));
  t.true(smtp.messages.some((m) => m.body.includes(CANARY)), 'the email itself carries the value: it is the destination');
  t.true(finished.some((v) => v.body.data.action_name === 'agent-leaky' && v.body.data.status === 'completed'), 'the agent ran its job');
  for (const name of Object.keys(ids)) {
    await call('GET', `/api/actions/${ids[name]}/runs`);
    await call('GET', `/api/actions/${ids[name]}`);
  }
  await call('GET', `/api/agents/${registered.body.data.id}/jobs`);
  await call('GET', '/api/credentials');
  await call('GET', '/api/approvals');
  await eventually(async () => hooks.requests.length >= runs.length, 30_000).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  sse.close();

  const surfaces: Record<string, string> = {
    responses: responses.map((r) => r.raw).join('\n'),
    sse: sse.messages.map((m) => m.data).join('\n'),
    webhooks: hooks.requests.map((r) => JSON.stringify(r.headers) + r.body).join('\n'),
    server_log: logText,
    agent_log: agentOut,
    process_args: readFileSync(join(dir, 'cmdlines'), 'utf8'),
  };
  const tables = (await app.ctx.db.raw(app.database.engine === 'sqlite' ? "select name from sqlite_master where type = 'table'" : 'show tables')) as unknown;
  const names = app.database.engine === 'sqlite' ? (tables as Array<{ name: string }>).map((r) => r.name) : ((tables as unknown[][])[0] as Array<Record<string, string>>).map((r) => Object.values(r)[0]!);
  for (const table of names) surfaces[`db:${table}`] = JSON.stringify(await app.ctx.db(table).select());
  t.true(sse.messages.length > 0 && hooks.requests.length > 0 && logText.length > 0, 'the surfaces were really watched');
  t.true(surfaces['db:action_execution_logs']!.includes('********'));
  for (const [surface, text] of Object.entries(surfaces)) t.deepEqual(leaksIn(text), [], `${surface} holds a form of a canary secret`);
});
