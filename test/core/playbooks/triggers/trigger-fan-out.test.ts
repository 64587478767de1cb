import test from 'ava';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { remaining } from '../../../../core/rate-limit/token-bucket.ts';
import { DEFAULT_RATE_LIMITS } from '../../../_helpers/harness/rate-limit-config.ts';
import { actionStep, playbookWorld, type PlaybookWorld } from '../runs/playbook-fixture.ts';

/**
 * Issue 25 item 6: a playbook triggered by action.completed whose S parallel steps run
 * its own action turns one run into 1 + S + S² + … runs; maxTriggerDepth bounds only the
 * depth. playbooks.maxRunsPerRoot bounds the whole tree, and every caused run is charged
 * to the tenant's request budget; each refused run raises a playbook_loop alert.
 */
const S = 3;
/** Tokens the second test leaves for caused runs (fewer than the S the root causes), and its standing rate-limit clock. */
const LEFT = 2;
const FROZEN_AT = Date.UTC(2026, 0, 1);

async function fanOut(w: PlaybookWorld, name: string): Promise<{ pb: string; action: string }> {
  const action = await w.action(name, 'ok.js', ['note']);
  const branches = Array.from({ length: S }, (_, i) => actionStep(`b${i}`, action, { note: `branch ${i}` }));
  const pb = await w.playbook({
    trigger: { event: 'action.completed', conditions: { action_name: name } },
    steps: [{ id: 'fan', name: 'fan', type: 'parallel', next_steps: branches.map((b) => b.id) }, ...branches],
  });
  return { pb, action };
}

/** Waits until no run of the playbook is live and the trigger consumer has seen every event; returns the runs. */
async function settled(w: PlaybookWorld, pb: string): Promise<Array<{ id: string; depth: number; trigger_event: string | null }>> {
  // The root run exists once the action run by hand has completed and its event was seen.
  await eventually(async () => ((await w.app.ctx.db('playbook_runs').where({ playbook_id: pb })).length > 0 ? true : undefined), 30_000);
  let last = -1;
  for (;;) {
    await w.app.ctx.background.playbookTriggers.drain();
    const rows = await eventually(async () => {
      const r = await w.app.ctx.db('playbook_runs').where({ playbook_id: pb });
      return r.every((x: { status: string }) => ['completed', 'failed', 'cancelled'].includes(x.status)) ? r : undefined;
    }, 30_000);
    if (rows.length === last) return rows;
    last = rows.length;
    await new Promise((r) => setTimeout(r, 300));
  }
}

const alertsFor = async (w: PlaybookWorld, pb: string) =>
  (await w.app.ctx.db('events').where({ kind: 'system.alert' }).orderBy('id')).map((r: { data: string }) => JSON.parse(r.data)).filter((a: { playbook_id: string }) => a.playbook_id === pb);

test('one root run causes at most maxRunsPerRoot runs across its whole tree; the refused ones raise playbook_loop alerts', async (t) => {
  const w = await playbookWorld({ playbooks: { maxTriggerDepth: 3, maxRunsPerRoot: 5 } });
  try {
    await w.app.ctx.background.playbookTriggers.start();
    w.startWorkers();
    const { pb, action } = await fanOut(w, 'fan-a');
    const res = await w.app.request('POST', `/api/actions/${action}/trigger`, { token: w.token, payload: { parameters: {} } });
    t.is(res.statusCode, 202);
    const runs = await settled(w, pb);
    // Unbounded this is 1 + 3 + 9 + 27 = 40 runs (and 120 action runs); bounded: the root and 5 it caused.
    t.is(runs.length, 1 + 5, JSON.stringify(runs.map((r) => r.depth)));
    const root = runs.find((r) => r.depth === 0)!;
    for (const r of runs.filter((x) => x.depth > 0)) t.is(JSON.parse(r.trigger_event!).root_run_id, root.id);
    const alerts = await alertsFor(w, pb);
    t.true(alerts.length > 0);
    t.true(alerts.every((a: { alert_type: string }) => a.alert_type === 'playbook_loop'));
    const fan = alerts.filter((a: { reason: string }) => a.reason === 'fan_out');
    t.true(fan.length > 0, JSON.stringify(alerts));
    t.is(fan[0].root_run_id, root.id);
    t.regex(fan[0].message, /playbooks\.maxRunsPerRoot \(5\)/);
  } finally {
    await w.app.ctx.background.playbookTriggers.stop();
    await w.close();
  }
});

test('runs caused by runs are charged to the tenant\'s request budget: a spent budget refuses them with a playbook_loop alert', async (t) => {
  // The production tier table (a Standard tenant holds a burst of 20 tokens) on a rate-limit
  // clock that stands still: the bucket never refills, so a slow machine cannot hand back tokens.
  const w = await playbookWorld({ rateLimit: DEFAULT_RATE_LIMITS, playbooks: { maxTriggerDepth: 3, maxRunsPerRoot: 1000 } }, undefined, { rateLimitClock: () => FROZEN_AT });
  const payer = { tenantId: w.tenantId, tier: 'standard' as const };
  const left = async () => remaining((await w.app.ctx.rateLimiter.peek(payer)).views[0]!);
  try {
    await w.app.ctx.background.playbookTriggers.start();
    w.startWorkers();
    const { pb, action } = await fanOut(w, 'fan-b');
    // Spend the burst by hand down to the trigger request plus LEFT tokens, which keeps the tree small.
    while ((await left()) > LEFT + 1) t.is((await w.app.request('GET', '/api/playbooks', { token: w.token })).statusCode, 200);
    const res = await w.app.request('POST', `/api/actions/${action}/trigger`, { token: w.token, payload: { parameters: {} } });
    t.is(res.statusCode, 202, res.raw);
    t.is(await left(), LEFT);
    const runs = await settled(w, pb);
    // Unbounded by width this is 40 runs; the root (started by hand, not by a run) is free and each caused run costs one token.
    t.true(runs.length < 1 + S + S * S + S * S * S, `${runs.length} runs`);
    t.is(runs.length, 1 + LEFT, JSON.stringify(runs.map((r) => r.depth)));
    t.is(await left(), 0);
    const root = runs.find((r) => r.depth === 0)!;
    const limited = (await alertsFor(w, pb)).filter((a: { reason: string }) => a.reason === 'rate_limited');
    t.true(limited.length > 0);
    t.is(limited[0].alert_type, 'playbook_loop');
    t.is(limited[0].root_run_id, root.id);
    t.regex(limited[0].message, /request budget is spent/);
  } finally {
    await w.app.ctx.background.playbookTriggers.stop();
    await w.close();
  }
});
