import test from 'ava';
import { AgentService } from '../../../core/agents/agent-service.ts';
import type { AgentRun } from '../../../core/agents/agent-dispatcher.ts';
import type { AgentPrincipal } from '../../../core/agents/agent-views.ts';
import type { AgentJobRequest, ExecutorResult } from '../../../core/plugin-api/index.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

let t0: TestApp;
let offset = 0;
let service: AgentService;
let seq = 0;

test.before(async () => {
  t0 = await createTestApp();
  service = new AgentService(t0.ctx.db, t0.ctx.secretBox, { leaseMs: 1000, pollIntervalMs: 20, timeoutGraceMs: 100, maxWaitSeconds: 2 }, () => Date.now() + offset);
});

test.after.always(async () => {
  await t0?.close();
});

async function agent(tenantId: string, name: string, labels: string[] = []): Promise<{ principal: AgentPrincipal; token: string; id: string }> {
  const { agent: a, token } = await service.register(tenantId, { name, labels });
  const principal = await service.authenticate(token);
  if (!principal) throw new Error('no principal');
  return { principal, token, id: a.id };
}

function run(tenantId: string, o: Partial<AgentRun> & { lines?: string[] } = {}): AgentRun & { lines: string[] } {
  const lines = o.lines ?? [];
  seq += 1;
  return { tenantId, executionId: `exe_TEST${process.pid}${seq}`, attempt: 1, sandbox: false, timeoutMs: 5000, signal: new AbortController().signal, log: (level, message) => lines.push(`${level} ${message}`), ...o, lines };
}

const job = (target: string, params: Record<string, unknown> = { host: '10.0.0.1' }): AgentJobRequest => ({ target, command: { kind: 'local', script: 'block-ip' }, params });

test.serial('a job goes to the agent named by its target or holding it as a label, oldest first, never another tenant\'s', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const named = await agent(a.tenantId, 'fw-1');
  const labelled = await agent(a.tenantId, 'fw-2', ['dmz']);
  const stranger = await agent(b.tenantId, 'fw-1', ['dmz']);
  const r1 = run(a.tenantId);
  const r2 = run(a.tenantId);
  const p1 = service.dispatch(r1, job('dmz', { n: 1 }));
  await eventually(async () => (await t0.ctx.db('agent_jobs').where({ execution_id: r1.executionId }).first()) ?? false);
  const p2 = service.dispatch(r2, job('dmz', { n: 2 }));
  await eventually(async () => (await t0.ctx.db('agent_jobs').where({ execution_id: r2.executionId }).first()) ?? false);
  t.is(await service.claim(stranger.principal, 0), null, 'another tenant\'s agent with the same label gets nothing');
  t.is(await service.claim(named.principal, 0), null, 'the label is not the agent\'s');
  const first = await service.claim(labelled.principal, 0);
  t.deepEqual(first?.params, { n: 1 }, 'oldest first, parameters opened for the agent');
  t.is(first?.execution_id, r1.executionId);
  t.like(first?.command, { kind: 'local', script: 'block-ip' });
  const second = await service.claim(labelled.principal, 0);
  t.deepEqual(second?.params, { n: 2 });
  for (const [claimed, value] of [[first!, 1], [second!, 2]] as const) {
    await service.start(labelled.principal, claimed.id);
    await service.finish(labelled.principal, claimed.id, { status: 'completed', output: { status: 'success', n: value } });
  }
  t.like(await p1, { status: 'completed', output: { n: 1 } });
  t.like(await p2, { status: 'completed', output: { n: 2 } });
  const row = await t0.ctx.db('agent_jobs').where({ id: first!.id }).first();
  t.false(JSON.stringify(row).includes('success'), 'the result is sealed at rest');
  t.regex(row.params_sealed, /^v1\./, 'parameters are sealed at rest');
});

test.serial('start only by the claiming agent, once; logs reach the run and leave the database', async (t) => {
  const a = await t0.tenant();
  const one = await agent(a.tenantId, 'one');
  const two = await agent(a.tenantId, 'two', ['one-too']);
  const r = run(a.tenantId);
  const done = service.dispatch(r, job('one'));
  const claimed = await service.claim(one.principal, 2000);
  t.truthy(claimed, 'the long poll is woken by the dispatch');
  await t.throwsAsync(service.start(two.principal, claimed!.id), { message: /not held/ });
  await service.start(one.principal, claimed!.id);
  await t.throwsAsync(service.start(one.principal, claimed!.id), { message: /only a claimed job can start/ });
  t.deepEqual(await service.heartbeat(one.principal, claimed!.id, [{ level: 'INFO', message: 'blocking 10.0.0.1' }, { level: 'WARN', message: 'slow' }]), { cancel: false });
  await eventually(async () => r.lines.length === 2);
  t.deepEqual(r.lines, ['INFO blocking 10.0.0.1', 'WARN slow']);
  // The dispatcher hands the lines to the run, then deletes their rows: wait for the delete, not only the hand-over.
  await eventually(async () => (await t0.ctx.db('agent_job_logs').where({ job_id: claimed!.id })).length === 0);
  t.is((await t0.ctx.db('agent_job_logs').where({ job_id: claimed!.id })).length, 0, 'forwarded lines are deleted');
  await service.finish(one.principal, claimed!.id, { status: 'failed', output: {}, error: { code: 'exit_1', message: 'boom' } });
  t.like(await done, { status: 'failed', error: { code: 'exit_1' } });
  await t.throwsAsync(service.finish(one.principal, claimed!.id, { status: 'completed', output: {} }), { message: /already ended/ });
  const other = await t0.tenant();
  const outsider = await agent(other.tenantId, 'one');
  await t.throwsAsync(service.start(outsider.principal, claimed!.id), { message: /not found/ });
});

test.serial('a claimed job never started goes back to the queue when its lease lapses', async (t) => {
  const a = await t0.tenant();
  const slow = await agent(a.tenantId, 'slow', ['pool']);
  const fast = await agent(a.tenantId, 'fast', ['pool']);
  const done = service.dispatch(run(a.tenantId), job('pool'));
  const claimed = await service.claim(slow.principal, 2000);
  t.truthy(claimed);
  t.is(await service.claim(fast.principal, 0), null, 'held while the lease runs');
  offset += 1500;
  try {
    const again = await service.claim(fast.principal, 0);
    t.is(again?.id, claimed!.id, 'the lapsed claim is offered again');
    await t.throwsAsync(service.start(slow.principal, claimed!.id), { message: /not held/ });
    await service.start(fast.principal, again!.id);
    await service.finish(fast.principal, again!.id, { status: 'completed', output: { by: 'fast' } });
    t.like(await done, { status: 'completed', output: { by: 'fast' } });
  } finally {
    offset -= 1500;
  }
});

test.serial('a running job whose agent falls silent is never offered again and fails at its timeout (agent_lost)', async (t) => {
  const a = await t0.tenant();
  const gone = await agent(a.tenantId, 'gone', ['pool']);
  const other = await agent(a.tenantId, 'other', ['pool']);
  const r = run(a.tenantId, { timeoutMs: 2500 });
  const done = service.dispatch(r, job('pool'));
  const claimed = await service.claim(gone.principal, 2000);
  await service.start(gone.principal, claimed!.id);
  offset += 1500; // the lease lapsed; the deadline has not passed
  try {
    t.is(await service.claim(other.principal, 0), null, 'a running job is not re-queued');
    const result: ExecutorResult = await done;
    t.is(result.status, 'timed_out');
    t.is(result.error?.code, 'agent_lost');
    await t.throwsAsync(service.finish(gone.principal, claimed!.id, { status: 'completed', output: {} }), { message: /already ended/ });
  } finally {
    offset -= 1500;
  }
});

test.serial('a re-dispatch of the same attempt waits on the existing job; a new attempt is a new job', async (t) => {
  const a = await t0.tenant();
  const ag = await agent(a.tenantId, 'solo');
  const r = run(a.tenantId);
  const first = service.dispatch(r, job('solo'));
  const claimed = await service.claim(ag.principal, 2000);
  await service.start(ag.principal, claimed!.id);
  const lines: string[] = [];
  const again = service.dispatch({ ...r, log: (l, m) => lines.push(`${l} ${m}`) }, job('solo'));
  await service.finish(ag.principal, claimed!.id, { status: 'completed', output: { once: true } });
  t.like(await first, { status: 'completed', output: { once: true } });
  t.like(await again, { status: 'completed', output: { once: true } });
  t.true(lines.some((l) => /resuming the agent job/.test(l)));
  t.is((await t0.ctx.db('agent_jobs').where({ execution_id: r.executionId })).length, 1);
  t.is(await service.claim(ag.principal, 0), null, 'nothing to run again');
  const retry = service.dispatch({ ...r, attempt: 2 }, job('solo'));
  const next = await service.claim(ag.principal, 2000);
  t.is(next?.attempt, 2);
  await service.start(ag.principal, next!.id);
  await service.finish(ag.principal, next!.id, { status: 'completed', output: {} });
  t.is((await retry).status, 'completed');
});

test.serial('no agent in time: timed_out no_agent, and the job is no longer offered', async (t) => {
  const a = await t0.tenant();
  const r = run(a.tenantId, { timeoutMs: 150 });
  const result = await service.dispatch(r, job('nobody'));
  t.like(result, { status: 'timed_out', error: { code: 'no_agent' } });
  const late = await agent(a.tenantId, 'nobody');
  t.is(await service.claim(late.principal, 0), null);
});

test.serial('cancel: the run ends at once, the agent is told at its next heartbeat, its late result is refused', async (t) => {
  const a = await t0.tenant();
  const ag = await agent(a.tenantId, 'cancelme');
  const abort = new AbortController();
  const done = service.dispatch(run(a.tenantId, { signal: abort.signal }), job('cancelme'));
  const claimed = await service.claim(ag.principal, 2000);
  await service.start(ag.principal, claimed!.id);
  abort.abort();
  t.like(await done, { status: 'failed', error: { code: 'cancelled' } });
  t.deepEqual(await service.heartbeat(ag.principal, claimed!.id, [{ level: 'INFO', message: 'still here' }]), { cancel: true });
  const err = await t.throwsAsync(service.finish(ag.principal, claimed!.id, { status: 'completed', output: {} }));
  t.is((err as { statusCode?: number }).statusCode, 409);
  // A queued job cancelled before any agent took it is never offered.
  const abort2 = new AbortController();
  const queued = service.dispatch(run(a.tenantId, { signal: abort2.signal }), job('cancelme'));
  abort2.abort();
  t.like(await queued, { error: { code: 'cancelled' } });
  t.is(await service.claim(ag.principal, 0), null);
});

test.serial('revoke: the token stops at once, claimed jobs go back, running ones fail agent_revoked', async (t) => {
  const a = await t0.tenant();
  const bad = await agent(a.tenantId, 'bad', ['pool']);
  const good = await agent(a.tenantId, 'good', ['pool']);
  const running = service.dispatch(run(a.tenantId), job('bad'));
  const c1 = await service.claim(bad.principal, 2000);
  await service.start(bad.principal, c1!.id);
  const waiting = service.dispatch(run(a.tenantId), job('pool'));
  const c2 = await service.claim(bad.principal, 2000);
  t.truthy(c2);
  await service.revoke(a.tenantId, bad.id);
  t.is(await service.authenticate(bad.token), null);
  t.like(await running, { status: 'failed', error: { code: 'agent_revoked' } });
  const taken = await service.claim(good.principal, 0);
  t.is(taken?.id, c2!.id, 'the claimed job went back to the queue');
  await service.start(good.principal, taken!.id);
  await service.finish(good.principal, taken!.id, { status: 'completed', output: {} });
  t.is((await waiting).status, 'completed');
  t.is((await service.get(a.tenantId, bad.id)).revokedAt !== null, true);
  await t.throwsAsync(service.revoke((await t0.tenant()).tenantId, good.id), { message: /not found/ });
});

test.serial('names are unique per tenant and validated', async (t) => {
  const a = await t0.tenant();
  await service.register(a.tenantId, { name: 'dup' });
  await t.throwsAsync(service.register(a.tenantId, { name: 'dup' }), { message: /exists/ });
  await t.throwsAsync(service.register(a.tenantId, { name: 'Bad Name' }), { message: /Invalid agent/ });
  const b = await t0.tenant();
  await t.notThrowsAsync(service.register(b.tenantId, { name: 'dup' }));
  t.is(await service.authenticate('rmpa_unknown'), null);
});

test.serial('a long poll ends on shutdown, and an agent revoked during its long poll takes nothing', async (t) => {
  const a = await t0.tenant();
  const own = new AgentService(t0.ctx.db, t0.ctx.secretBox, { pollIntervalMs: 20, maxWaitSeconds: 30 });
  const { token } = await own.register(a.tenantId, { name: 'poller' });
  const principal = (await own.authenticate(token))!;
  const waiting = own.claim(principal, 30_000);
  own.interruptWaits();
  t.is(await waiting, null);
  const revokedMidPoll = (await agent(a.tenantId, 'midpoll')).principal;
  const poll = service.claim(revokedMidPoll, 2000);
  await service.revoke(a.tenantId, revokedMidPoll.id);
  const r = run(a.tenantId, { timeoutMs: 400 });
  const done = service.dispatch(r, job('midpoll'));
  t.is(await poll, null);
  t.like(await done, { status: 'timed_out', error: { code: 'no_agent' } });
});
