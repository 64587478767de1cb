import test from 'ava';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

const SECRET = 'Route-Canary-4u8!Qz/7+Lm';
const scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-runs-'));
const marker = join(scriptsDir, 'ran.log');

function script(name: string, body: string): void {
  const file = join(scriptsDir, name);
  writeFileSync(file, `#!/usr/bin/env node\n${body}\n`);
  chmodSync(file, 0o755);
}

script('block.js', `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
require('fs').appendFileSync(${JSON.stringify(marker)}, process.env.RAMPART_EXECUTION_ID + '\\n');
console.error('blocking ' + input.ip + ' with ' + input.api_key);
console.error('b64 ' + Buffer.from(input.api_key).toString('base64'));
process.stdout.write(JSON.stringify({ status: 'already_blocked', data: { ip: input.ip } }));
`);
script('slow.js', `setTimeout(() => process.stdout.write('{"status":"success","data":{}}'), 30000);`);

let app: TestApp;
let token: string;
let actionId: string;

test.before(async () => {
  app = await createTestApp({ executors: { local: { scriptsDir }, leaseMs: 1000, pollIntervalMs: 20, executeWaitMs: 10000 } });
  token = (await app.tenant()).token;
  const cred = await app.request('POST', '/api/credentials', { token, payload: { name: 'api_key', value: SECRET } });
  if (cred.statusCode !== 201) throw new Error(cred.raw);
  const created = await app.request('POST', '/api/actions', {
    token,
    payload: {
      name: 'block-ip',
      type: 'remediation',
      executor: 'local',
      description: 'Blocks an address on the edge firewall',
      config: { target: 'block.js' },
      parameters: [
        { name: 'ip', type: 'string', required: true, validation: { pattern: '^[0-9.]+$' } },
        { name: 'api_key', type: 'secret', required: true },
      ],
    },
  });
  if (created.statusCode !== 201) throw new Error(created.raw);
  actionId = created.body.data.id;
  app.ctx.background.actions.start();
});

test.after.always(async () => {
  await app.ctx.background.actions.stop();
  await app.close();
  rmSync(scriptsDir, { recursive: true, force: true });
});

const count = async () => Number((await app.ctx.db('action_executions').count({ n: '*' }))[0]!.n);

test.serial('trigger queues a run (202 pending), the executable runs once, its output and masked logs are recorded', async (t) => {
  const res = await app.request('POST', `/api/actions/${actionId}/trigger`, { token, payload: { parameters: { ip: '198.51.100.7' } } });
  t.is(res.statusCode, 202);
  t.is(res.body.data.status, 'pending');
  t.is(res.body.data.action_id, actionId);
  const id = res.body.data.execution_id;
  const done = await eventually(async () => {
    const r = await app.request('GET', `/api/actions/executions/${id}`, { token });
    return r.body.data.status === 'completed' ? r.body.data : undefined;
  }, 15000);
  t.deepEqual(done.output, { status: 'already_blocked', data: { ip: '198.51.100.7' } });
  t.deepEqual(done.parameters, { ip: '198.51.100.7' });
  t.is(typeof done.duration_seconds, 'number');
  t.truthy(done.logs.find((l: { message: string }) => l.message === 'blocking 198.51.100.7 with ********'));
  t.truthy(done.logs.find((l: { message: string }) => l.message === 'b64 ********'));
  t.false(JSON.stringify(done).includes(SECRET));
  t.is(readFileSync(marker, 'utf8').split('\n').filter((l) => l === id).length, 1);
  const list = await app.request('GET', `/api/actions/${actionId}/executions?per_page=5`, { token });
  t.is(list.statusCode, 200);
  t.is(list.body.data[0].execution_id, id);
  t.is(list.body.meta.per_page, 5);
  t.is(list.body.data[0].logs, undefined);
  const runs = await app.request('GET', `/api/actions/${actionId}/runs`, { token });
  t.true(runs.body.data[0].logs.length > 0);
  const kinds = (await app.ctx.db('events').orderBy('id')).filter((e: { data: string }) => JSON.parse(e.data).execution_id === id).map((e: { kind: string }) => e.kind);
  t.deepEqual(kinds, ['action.triggered', 'action.completed']);
  await t.notThrowsAsync(async () => {
    const again = await app.request('POST', `/api/actions/executions/${id}/cancel`, { token });
    t.is(again.statusCode, 409);
    t.is(again.body.error.code, 'execution_finished');
  });
});

test.serial('execute waits for the result; dry run returns the plan with the secret masked and runs nothing', async (t) => {
  const before = existsSync(marker) ? readFileSync(marker, 'utf8') : '';
  const dry = await app.request('POST', `/api/actions/${actionId}/trigger`, { token, payload: { parameters: { ip: '198.51.100.8' }, dry_run: true } });
  t.is(dry.statusCode, 200);
  t.is(dry.body.data.status, 'completed');
  t.true(dry.body.data.dry_run);
  t.is(dry.body.data.plan.executor, 'local');
  t.true(JSON.stringify(dry.body.data.plan).includes('********'));
  t.false(JSON.stringify(dry.body).includes(SECRET));
  t.is(readFileSync(marker, 'utf8'), before, 'nothing ran');
  const exec = await app.request('POST', `/api/actions/${actionId}/execute`, { token, payload: { parameters: { ip: '198.51.100.9' } } });
  t.is(exec.statusCode, 200);
  t.is(exec.body.data.status, 'completed');
  t.is(exec.body.data.output.data.ip, '198.51.100.9');
  t.true(Array.isArray(exec.body.data.logs));
});

test.serial('a running executable is cancelled with its process; the run ends cancelled', async (t) => {
  const created = await app.request('POST', '/api/actions', { token, payload: { name: 'slow', type: 'remediation', executor: 'local', config: { target: 'slow.js' } } });
  const res = await app.request('POST', `/api/actions/${created.body.data.id}/trigger`, { token, payload: { parameters: {} } });
  const id = res.body.data.execution_id;
  await eventually(async () => (await app.request('GET', `/api/actions/executions/${id}`, { token })).body.data.status === 'running');
  const cancel = await app.request('POST', `/api/actions/executions/${id}/cancel`, { token });
  t.is(cancel.statusCode, 202);
  t.true(cancel.body.data.cancel_requested);
  const done = await eventually(async () => {
    const r = await app.request('GET', `/api/actions/executions/${id}`, { token });
    return r.body.data.status === 'cancelled' ? r.body.data : undefined;
  }, 10000);
  t.is(done.error.code, 'cancelled');
});

test.serial('bad input is a 4xx in the one error shape and queues nothing', async (t) => {
  const n = await count();
  const cases: Array<[string, unknown, number, string]> = [
    [`/api/actions/${actionId}/trigger`, { parameters: { ip: 'not an ip' } }, 400, 'validation_failed'],
    [`/api/actions/${actionId}/trigger`, { parameters: { ip: '1.2.3.4', extra: 1 } }, 400, 'validation_failed'],
    [`/api/actions/${actionId}/trigger`, { parameters: { ip: '1.2.3.4', api_key: 'given' } }, 400, 'validation_failed'],
    [`/api/actions/${actionId}/trigger`, {}, 400, 'validation_failed'],
    [`/api/actions/${actionId}/trigger`, { parameters: { ip: '1.2.3.4' }, target: 'ast_01J00000000000000000000000' }, 404, 'not_found'],
    [`/api/actions/act_01J00000000000000000000000/trigger`, { parameters: {} }, 404, 'not_found'],
    [`/api/actions/nope/trigger`, { parameters: {} }, 400, 'validation_failed'],
  ];
  for (const [url, payload, status, code] of cases) {
    const res = await app.request('POST', url, { token, payload });
    t.is(res.statusCode, status, `${url} ${JSON.stringify(payload)}: ${res.raw}`);
    t.is(res.body.error.code, code, res.raw);
  }
  t.is(await count(), n);
});

test.serial('other tenants see 404; scopes are enforced', async (t) => {
  const other = await app.tenant();
  const res = await app.request('POST', `/api/actions/${actionId}/trigger`, { token: other.token, payload: { parameters: { ip: '1.2.3.4' } } });
  t.is(res.statusCode, 404);
  const mine = (await app.request('GET', `/api/actions/${actionId}/executions`, { token })).body.data[0].execution_id;
  t.is((await app.request('GET', `/api/actions/executions/${mine}`, { token: other.token })).statusCode, 404);
  t.is((await app.request('POST', `/api/actions/executions/${mine}/cancel`, { token: other.token })).statusCode, 404);
  t.is((await app.request('GET', `/api/actions/${actionId}/executions`, { token: other.token })).statusCode, 404);
  const reader = await app.tenant({ scopes: ['actions:read'] });
  t.is((await app.request('POST', `/api/actions/${actionId}/trigger`, { token: reader.token, payload: { parameters: {} } })).statusCode, 403);
});
