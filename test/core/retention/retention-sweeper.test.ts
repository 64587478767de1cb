import test from 'ava';
import { createLogger } from '../../../core/logger.ts';
import { RetentionSweeper } from '../../../core/retention/retention-sweeper.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

const DAY = 86_400_000;
const NOW = Date.now();
// Serial: every sweep touches all three tables, so tests of one database must not overlap.
const config = { eventsDays: 30, webhookDeliveriesDays: 30, scanCallbacksDays: 30, sweepIntervalMs: 3_600_000, batchSize: 2 };
let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

async function event(ageDays: number): Promise<number> {
  const [id] = await t0.ctx.db('events').insert({ tenant_id: null, kind: 'system.alert', asset_id: null, data: '{}', created_at: NOW - ageDays * DAY });
  return Number(id ?? (await t0.ctx.db('events').max({ id: 'id' }).first())!.id);
}

test.serial('old events go once every active consumer has read them; a backlog of a live consumer stays', async (t) => {
  await t0.ctx.db('event_cursors').delete();
  await t0.ctx.db('events').delete();
  const old = [await event(40), await event(35), await event(31), await event(31)];
  const fresh = await event(1);
  // An active consumer (moved yesterday) has read up to the second old event; a gone one
  // (not moved or leased for 60 days) is far behind and no longer holds anything.
  await t0.ctx.db('event_cursors').insert([
    { consumer: 'siem:live', last_event_id: old[1], locked_by: null, locked_until: 0, updated_at: NOW - DAY },
    { consumer: 'siem:deleted', last_event_id: 0, locked_by: null, locked_until: 0, updated_at: NOW - 60 * DAY },
  ]);
  const sweeper = new RetentionSweeper(t0.ctx.db, config, createLogger('silent'));
  t.is((await sweeper.sweepOnce(NOW)).events, 2);
  t.deepEqual((await t0.ctx.db('events').orderBy('id').pluck('id')).map(Number), [old[2], old[3], fresh]);
  // A consumer stuck on a failing collector keeps its lease: its unread events survive even though it has not moved.
  await t0.ctx.db('event_cursors').where({ consumer: 'siem:live' }).update({ updated_at: NOW - 45 * DAY, locked_by: 'proc-1', locked_until: Date.now() + 60_000 });
  t.is((await sweeper.sweepOnce(NOW)).events, 0);
  await t0.ctx.db('event_cursors').where({ consumer: 'siem:live' }).update({ last_event_id: fresh, locked_until: 0 });
  t.is((await sweeper.sweepOnce(NOW)).events, 2, 'read and old: gone; the fresh one stays');
  t.deepEqual((await t0.ctx.db('events').pluck('id')).map(Number), [fresh]);
});

test.serial('finished webhook deliveries and scan callbacks past retention are deleted with their attempts; pending ones never', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const hook = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'soc', url: 'https://127.0.0.1:9/hook', events: ['*'] } });
  t.is(hook.statusCode, 201, hook.raw);
  const webhookId = hook.body.data.id as string;
  const delivery = (id: string, status: string, ageDays: number, eventId: number) => ({
    id, tenant_id: tenantId, webhook_id: webhookId, event_id: eventId, event_kind: 'finding.new', payload: '{}', status, attempt_count: 1, attempts_left: 0, created_at: NOW - ageDays * DAY, updated_at: NOW - ageDays * DAY,
  });
  await t0.ctx.db('webhook_deliveries').insert([
    delivery('dlv_old_ok', 'delivered', 40, 1), delivery('dlv_old_failed', 'failed', 31, 2), delivery('dlv_old_failed2', 'failed', 31, 6),
    delivery('dlv_old_pending', 'retried', 40, 3), delivery('dlv_new_failed', 'failed', 5, 4),
  ]);
  await t0.ctx.db('webhook_attempts').insert({ tenant_id: tenantId, delivery_id: 'dlv_old_ok', attempt_number: 1, outcome: 'success', response_code: 200, duration_ms: 5, attempted_at: NOW - 40 * DAY });
  const sweeper = new RetentionSweeper(t0.ctx.db, config, createLogger('silent'));
  const removed = await sweeper.sweepOnce(NOW);
  t.is(removed.webhookDeliveries, 3, 'in batches of 2');
  t.deepEqual((await t0.ctx.db('webhook_deliveries').where({ webhook_id: webhookId }).orderBy('id').pluck('id')), ['dlv_new_failed', 'dlv_old_pending']);
  t.is((await t0.ctx.db('webhook_attempts').where({ delivery_id: 'dlv_old_ok' })).length, 0, 'attempts cascade');
  t.is(removed.scanCallbacks, 0);
});

test.serial('delivered or failed scan callbacks past retention are deleted; pending ones stay', async (t) => {
  const { token } = await t0.tenant();
  const scanIds: string[] = [];
  for (const name of ['127.0.0.11', '127.0.0.12', '127.0.0.13']) {
    const asset = await t0.request('POST', '/api/assets', { token, payload: { name, type: 'ip' } });
    const scan = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: asset.body.data.id, scan_type: 'port' } });
    t.is(scan.statusCode, 201, scan.raw);
    scanIds.push(scan.body.data.scan_id);
  }
  // Scan callbacks are deliveries of the webhook queue that name a scan (migration 020).
  const callback = (scanId: string, status: string, ageDays: number) => ({
    id: `dlv_cb_${scanId}`, tenant_id: 'ten_x', webhook_id: null, scan_id: scanId, target_url: 'https://127.0.0.1:9/cb', event_id: 0, event_kind: 'scan.completed', payload: '{}',
    status, attempt_count: 1, attempts_left: 0, next_attempt_at: 0, created_at: NOW - ageDays * DAY, updated_at: NOW - ageDays * DAY,
  });
  await t0.ctx.db('webhook_deliveries').insert([callback(scanIds[0]!, 'delivered', 40), callback(scanIds[1]!, 'pending', 40), callback(scanIds[2]!, 'failed', 2)]);
  const removed = await new RetentionSweeper(t0.ctx.db, config, createLogger('silent')).sweepOnce(NOW);
  t.is(removed.scanCallbacks, 1);
  t.is(removed.webhookDeliveries, 0, 'callbacks keep their own retention');
  t.deepEqual((await t0.ctx.db('webhook_deliveries').whereIn('scan_id', scanIds).pluck('scan_id')).sort(), [scanIds[1], scanIds[2]].sort());
});
