import test from 'ava';
import { mockExecutorContext } from '../../../core/author-kit/index.ts';
import type { AgentJobRequest } from '../../../core/plugin-api/index.ts';
import plugin from '../../../executors/agent/index.ts';

function withAgent(o: Parameters<typeof mockExecutorContext>[0] = {}) {
  const jobs: AgentJobRequest[] = [];
  const ctx = mockExecutorContext({ agents: async (job) => (jobs.push(job), { status: 'completed', output: { status: 'success' } }), ...o });
  return { ctx, jobs };
}

test('a remediation action runs the named executable on the target agent with the parameters', async (t) => {
  const { ctx, jobs } = withAgent({ config: { target: 'dc1', script: 'block-ip' }, params: { ip: '192.0.2.1' } });
  t.like(await plugin.run(ctx), { status: 'completed', output: { status: 'success' } });
  t.deepEqual(jobs, [{ target: 'dc1', command: { kind: 'local', script: 'block-ip' }, params: { ip: '192.0.2.1' } }]);
});

test('a script action runs its source on the agent', async (t) => {
  const { ctx, jobs } = withAgent({ actionType: 'script', config: { target: 'edge', source: 'return params.n * 2;' }, params: { n: 2 } });
  await plugin.run(ctx);
  t.deepEqual(jobs[0]?.command, { kind: 'script', source: 'return params.n * 2;' });
});

test('missing or unsafe config fails without queueing anything', async (t) => {
  for (const [config, actionType, code] of [
    [{ target: 'dc1' }, 'remediation', 'script_missing'],
    [{ target: 'dc1', script: '../bin/sh' }, 'remediation', 'invalid_script'],
    [{ target: 'dc1', script: 'a/b' }, 'remediation', 'invalid_script'],
    [{ script: 'x' }, 'remediation', 'target_missing'],
    [{ target: 'dc1' }, 'script', 'source_missing'],
  ] as const) {
    const { ctx, jobs } = withAgent({ config, actionType });
    t.like(await plugin.run(ctx), { status: 'failed', error: { code } });
    t.is(jobs.length, 0);
  }
});

test('a dry run queues no job and shows the command and its stdin', async (t) => {
  const { ctx, jobs } = withAgent({ dryRun: true, config: { target: 'dc1', script: 'block-ip' }, params: { ip: '192.0.2.1' } });
  const result = await plugin.run(ctx);
  t.is(jobs.length, 0);
  t.deepEqual(result.plan, { executor: 'agent', target: 'dc1', command: { kind: 'local', script: 'block-ip' }, stdin: '{"ip":"192.0.2.1"}' });
});

test('the manifest: kind agent, API ^1.3.0, secrets:read', (t) => {
  t.like(plugin, { kind: 'executor', executorKind: 'agent', apiVersion: '^1.3.0', capabilities: ['secrets:read'] });
});
