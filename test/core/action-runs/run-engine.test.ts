import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createEngine, type Engine } from './engine-fixture.ts';
import { executionRepository } from '../../../core/action-runs/execution-repository.ts';

const SECRET = 'Canary-7Hq!Zp/9+Wx=Kd';

let app: TestApp;
let engine: Engine;
let tenantId: string;
const who = () => ({ tenantId, userId: null, tokenId: 'tok_test' });

test.before(async () => {
  app = await createTestApp();
  engine = createEngine(app, { perActionConcurrency: 1, concurrency: 4, leaseMs: 1000, killGraceMs: 200 });
  tenantId = (await app.tenant()).tenantId;
  engine.credentials.set('api_key', { value: SECRET, sandbox: 'sandbox-value-123' });
  engine.runtime.worker.start();
});

test.after.always(async () => {
  await engine.runtime.worker.stop();
  await app.close();
});

const ended = (id: string) =>
  eventually(async () => {
    const e = await engine.runtime.executions.get(tenantId, id);
    return ['completed', 'failed', 'timed_out', 'cancelled'].includes(e.status) ? e : undefined;
  }, 15_000);

const events = async (executionId: string) =>
  (await app.ctx.db('events').orderBy('id')).filter((e: { data: string }) => JSON.parse(e.data).execution_id === executionId).map((e: { kind: string; data: string }) => ({ kind: e.kind, data: JSON.parse(e.data) }));

test.serial('a run is queued with action.triggered, runs once, and ends completed with action.completed', async (t) => {
  engine.behaviours.set('ok', async (ctx) => {
    ctx.log('INFO', `hello ${String(ctx.params.ip)}`);
    return { status: 'completed', output: { status: 'success', data: { blocked: ctx.params.ip } } };
  });
  const a = engine.action(tenantId, { parameters: [{ name: 'ip', type: 'string', required: true }] });
  // Queued with no worker polling (it polls every 20 ms here): the answer reads the run before any claim.
  await engine.runtime.worker.stop();
  const { execution } = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: { ip: '203.0.113.9' } });
  t.is(execution.status, 'pending');
  engine.runtime.worker.start();
  const done = await ended(execution.execution_id);
  t.is(done.status, 'completed');
  t.deepEqual(done.output, { status: 'success', data: { blocked: '203.0.113.9' } });
  t.is(done.attempt, 1);
  t.truthy(done.logs!.find((l) => l.message === 'hello 203.0.113.9' && l.level === 'INFO'));
  t.deepEqual((await events(execution.execution_id)).map((e) => e.kind), ['action.triggered', 'action.completed']);
  const ctx = engine.contexts.at(-1)!;
  t.is(ctx.executionId, execution.execution_id);
  t.deepEqual({ ...ctx.settings }, { flavour: 'test' });
});

test.serial('secret values are scrubbed in every form from logs, output and errors, and never stored in parameters', async (t) => {
  engine.behaviours.set('leaky', async (ctx) => {
    const s = String(ctx.params.api_key);
    ctx.log('INFO', `raw ${s}`);
    ctx.log('INFO', `b64 ${Buffer.from(s).toString('base64')}`);
    ctx.log('INFO', `basic ${Buffer.from(`user:${s}`).toString('base64')}`);
    ctx.log('INFO', `hex ${Buffer.from(s).toString('hex')} url ${encodeURIComponent(s)}`);
    return { status: 'failed', output: { echo: s, [s]: 1, nested: [{ json: JSON.stringify({ s }) }] }, error: { code: 'boom', message: `bad key ${s}` } };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'leaky' }, parameters: [{ name: 'api_key', type: 'secret', required: true }] });
  const { execution } = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} });
  const done = await ended(execution.execution_id);
  t.is(done.status, 'failed');
  t.is(engine.contexts.at(-1)!.params.api_key, SECRET, 'the executor itself gets the value');
  const forms = [SECRET, Buffer.from(SECRET).toString('base64'), Buffer.from(SECRET).toString('hex'), encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64').slice(4, 16)];
  const rows = JSON.stringify([await app.ctx.db('action_executions').where({ id: execution.execution_id }), await app.ctx.db('action_execution_logs').where({ execution_id: execution.execution_id }), await app.ctx.db('events')]);
  const basic = Buffer.from(`user:${SECRET}`).toString('base64');
  for (const f of [...forms, basic.slice(8, 20)]) t.false(rows.includes(f), `stored rows hold a form of the secret: ${f}`);
  t.true(JSON.stringify(done).includes('********'));
  t.deepEqual(done.parameters, {});
});

test.serial('a failed attempt is retried up to max_attempts, each attempt logged', async (t) => {
  let calls = 0;
  engine.behaviours.set('flaky', async () => {
    calls += 1;
    return calls < 3 ? { status: 'failed', output: {}, error: { code: 'http_503', message: 'try later' } } : { status: 'completed', output: { ok: true } };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'flaky' }, retry: { maxAttempts: 3, backoffSeconds: 0 } });
  const { execution } = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} });
  const done = await ended(execution.execution_id);
  t.is(done.status, 'completed');
  t.is(done.attempt, 3);
  t.is(calls, 3);
  t.is(done.logs!.filter((l) => /retrying in/.test(l.message)).length, 2);
  t.deepEqual([...new Set(done.logs!.map((l) => l.attempt))], [1, 2, 3]);
});

test.serial('an executor that overruns its timeout ends timed_out even if it ignores its signal', async (t) => {
  engine.behaviours.set('stuck', () => new Promise(() => {}));
  const a = engine.action(tenantId, { config: { behaviour: 'stuck' }, timeoutSeconds: 1, retry: { maxAttempts: 3, backoffSeconds: 0 } });
  const { execution } = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} });
  const done = await ended(execution.execution_id);
  t.is(done.status, 'timed_out');
  t.is(done.attempt, 1, 'timeouts are not retried');
  t.deepEqual((await events(execution.execution_id)).map((e) => [e.kind, e.data.status]), [['action.triggered', 'pending'], ['action.failed', 'timed_out']]);
});

test.serial('per-action concurrency: a second run waits in pending while the first runs; cancel ends both ways', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  engine.behaviours.set('gated', async (ctx) => {
    await Promise.race([gate, new Promise((r) => ctx.signal.addEventListener('abort', r))]);
    return { status: ctx.signal.aborted ? 'failed' : 'completed', output: {} };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'gated' } });
  const first = (await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} })).execution;
  await eventually(async () => (await engine.runtime.executions.get(tenantId, first.execution_id)).status === 'running');
  const second = (await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} })).execution;
  await new Promise((r) => setTimeout(r, 300));
  t.is((await engine.runtime.executions.get(tenantId, second.execution_id)).status, 'pending');
  await engine.runtime.control.cancel(tenantId, second.execution_id);
  t.is((await engine.runtime.executions.get(tenantId, second.execution_id)).status, 'cancelled');
  await engine.runtime.control.cancel(tenantId, first.execution_id);
  const done = await ended(first.execution_id);
  t.is(done.status, 'cancelled');
  await t.throwsAsync(engine.runtime.control.cancel(tenantId, first.execution_id), { message: /already ended/ });
  release();
});

test.serial('a running run whose worker died is failed worker_lost and never run again', async (t) => {
  let calls = 0;
  engine.behaviours.set('counted', async () => {
    calls += 1;
    return { status: 'completed', output: {} };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'counted' } });
  const id = `exe_01J${String(Date.now()).padStart(23, '0')}`;
  const now = Date.now();
  // A worker claimed it (attempt 1 started) and died: running, lease long gone.
  await executionRepository.insert(app.ctx.db, {
    id, tenantId, actionId: a.actionId, actionVersionId: a.versionId, actionName: a.name, actionVersion: a.version, status: 'running', waitReason: null, approvalId: null, target: null,
    parameters: {}, secretRefs: {}, snapshot: a, output: null, error: null, sandbox: false, dryRun: false, attempt: 1, maxAttempts: 3,
    requestedBy: { user_id: null, token_id: 'tok_test' }, parent: null, startedAt: now - 5000, completedAt: null, now: now - 5000,
  });
  await app.ctx.db('action_executions').where({ id }).update({ locked_by: 'dead-worker', locked_until: now - 2000 });
  const done = await ended(id);
  t.is(done.status, 'failed');
  t.is(done.error!.code, 'worker_lost');
  t.is(calls, 0, 'not run again, although attempts were left');
  t.deepEqual((await events(id)).map((e) => [e.kind, e.data.status]), [['action.failed', 'failed']]);
});

test.serial('dry run: the plan with secrets masked, nothing run, no event; a disabled definition runs only in sandbox', async (t) => {
  engine.behaviours.set('planner', async (ctx) => {
    if (!ctx.dryRun) throw new Error('a dry run must not run');
    return { status: 'completed', output: {}, plan: { request: { url: 'https://example.invalid/', headers: { authorization: `Bearer ${String(ctx.params.api_key)}` } } } };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'planner' }, parameters: [{ name: 'api_key', type: 'secret', required: true }], enabled: false, view: 'definition' });
  await t.throwsAsync(engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }), { message: /disabled definition/ });
  const result = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {}, dry_run: true, sandbox: true });
  t.deepEqual(result.plan, { executor: 'remote', request: { url: 'https://example.invalid/', headers: { authorization: 'Bearer ********' } } });
  t.is(result.execution.status, 'completed');
  t.true(result.execution.dry_run);
  t.deepEqual(await events(result.execution.execution_id), []);
  t.is(engine.contexts.at(-1)!.params.api_key, 'sandbox-value-123', 'sandbox runs get the sandbox value');
});

test.serial('a missing credential is a 400 naming it and writes nothing', async (t) => {
  const a = engine.action(tenantId, { parameters: [{ name: 'token', type: 'secret', required: true, credential: 'nope' }] });
  const before = (await app.ctx.db('action_executions').count({ n: '*' }))[0]!.n;
  await t.throwsAsync(engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }), { message: /nope/ });
  t.is((await app.ctx.db('action_executions').count({ n: '*' }))[0]!.n, before);
});
