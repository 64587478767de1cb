import test from 'ava';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { eventRepository } from '../../../../core/events/event-repository.ts';
import { TriggerConsumer } from '../../../../core/playbooks/triggers/trigger-consumer.ts';
import { actionStep, playbookWorld, type PlaybookWorld } from '../runs/playbook-fixture.ts';

let w: PlaybookWorld;
let ok: string;

test.before(async () => {
  w = await playbookWorld({ playbooks: { maxTriggerDepth: 2 } });
  ok = await w.action('ok', 'ok.js', ['note']);
  await w.app.ctx.background.playbookTriggers.start();
});
test.after.always(async () => {
  await w?.app.ctx.background.playbookTriggers.stop();
  await w?.close();
});

const finding = (severity: string, title: string, tenantId = w.tenantId) =>
  w.app.ctx.outbox.transaction(async (uow) =>
    uow.emit({ tenantId, kind: 'finding.new', data: { finding_id: `fnd_${title}`, title, severity, cvss: 7.5, asset: { id: 'ast_none', name: 'web-1', type: 'domain' }, scan_id: 'scn_x' } }),
  );
const runsOf = (playbookId: string) => w.app.ctx.db('playbook_runs').where({ playbook_id: playbookId }).orderBy('created_at');
const consumer = () => new TriggerConsumer({ db: w.app.ctx.db, bus: w.app.ctx.bus, outbox: w.app.ctx.outbox, logger: w.app.ctx.logger, config: w.app.ctx.config, playbooks: w.app.ctx.services.playbooks, runs: w.app.ctx.services.playbookRuns, onRuns: () => {} });

test.serial('a stored event starts one pending run per matching enabled playbook, with the event as its context', async (t) => {
  const high = await w.playbook({ trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } }, steps: [actionStep('s1', ok, { note: '{{ finding.title }} on {{ asset.name }}' })] });
  const other = await w.playbook({ trigger: { event: 'finding.new', conditions: { severity: 'low' } }, steps: [actionStep('s1', ok, {})] });
  const off = await w.playbook({ trigger: { event: 'finding.new', conditions: {} }, steps: [actionStep('s1', ok, {})] });
  t.is((await w.app.request('PATCH', `/api/playbooks/${off}`, { token: w.token, payload: { enabled: false } })).statusCode, 200);
  const eventId = await finding('critical', 'sqli');
  await finding('medium', 'noise');
  await w.app.ctx.background.playbookTriggers.drain();
  const runs = await runsOf(high);
  t.is(runs.length, 1);
  t.is(String(runs[0].trigger_event_id), String(eventId));
  t.is(runs[0].status, 'pending');
  t.is(runs[0].depth, 0);
  t.is((await runsOf(other)).length, 0);
  t.is((await runsOf(off)).length, 0, 'a disabled playbook is never triggered');
  w.startWorkers();
  const done = await w.until(runs[0].id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is(done.trigger_event_id, String(eventId));
  t.true(w.runsOf().some((r) => r.params.note === 'sqli on web-1'));
  t.deepEqual(await w.events(runs[0].id), ['playbook.started:running', 'playbook.completed:completed']);
});

test.serial('exactly one run per playbook per event: two consumers racing on the same batch, and the batch handled again after a restart', async (t) => {
  const pb = await w.playbook({ trigger: { event: 'finding.new', conditions: { title: { matches: '^race-' } } }, steps: [actionStep('s1', ok, {})] });
  await w.app.ctx.background.playbookTriggers.stop();
  const before = await eventRepository.latestId(w.app.ctx.db);
  for (let i = 0; i < 5; i++) await finding('medium', `race-${i}`);
  const { events } = await eventRepository.readAfter(w.app.ctx.db, before, 100, 0);
  t.is(events.length, 5);
  const [a, b] = [consumer(), consumer()];
  const created = await Promise.all([a.handle(events), b.handle(events), a.handle(events)]);
  t.is(created.reduce((x, y) => x + y, 0), 5, 'each event made one run, whoever got there first');
  await w.app.ctx.background.playbookTriggers.start();
  await w.app.ctx.background.playbookTriggers.drain();
  t.is(await consumer().handle(events), 0, 'a restarted consumer handling the batch again creates nothing');
  const runs = await runsOf(pb);
  t.is(runs.length, 5);
  t.is(new Set(runs.map((r: { trigger_event_id: number }) => String(r.trigger_event_id))).size, 5);
});

test.serial('a trigger loop is cut beyond playbooks.maxTriggerDepth with a system.alert', async (t) => {
  const loopAction = await w.action('loop-act', 'ok.js', ['note']);
  const pb = await w.playbook({ trigger: { event: 'action.completed', conditions: { action_name: 'loop-act' } }, steps: [actionStep('again', loopAction, { note: 'loop' })] });
  const alertsBefore = await w.app.ctx.db('events').where({ kind: 'system.alert' }).count({ n: '*' }).first();
  // One run of the action by hand: its action.completed starts the chain (depth 0), each run's own action.completed the next.
  const res = await w.app.request('POST', `/api/actions/${loopAction}/trigger`, { token: w.token, payload: { parameters: {} } });
  t.is(res.statusCode, 202);
  const alert = await eventually(async () => {
    const rows = await w.app.ctx.db('events').where({ kind: 'system.alert' }).orderBy('id');
    return rows.length > Number(alertsBefore?.n ?? 0) ? JSON.parse(rows.at(-1).data) : undefined;
  }, 20_000);
  t.is(alert.alert_type, 'playbook_loop');
  t.is(alert.playbook_id, pb);
  t.is(alert.depth, 3);
  const runs = await eventually(async () => {
    const rows = await runsOf(pb);
    return rows.every((r: { status: string }) => ['completed', 'failed'].includes(r.status)) ? rows : undefined;
  });
  t.deepEqual(runs.map((r: { depth: number }) => r.depth), [0, 1, 2]);
  await w.app.ctx.background.playbookTriggers.drain();
  t.is((await runsOf(pb)).length, 3, 'no run beyond the cut');
});
