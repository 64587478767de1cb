import test from 'ava';
import { eventRepository } from '../../../core/events/event-repository.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

test.serial('an event exists exactly when its transaction commits', async (t) => {
  const { tenantId } = await t0.tenant();
  const before = await eventRepository.latestId(t0.ctx.db);
  const id = await t0.ctx.outbox.transaction(async ({ emit }) => emit({ tenantId, kind: 'asset.created', assetId: 'ast_x', data: { name: 'example.com' } }));
  t.true(id > before);
  const stored = await eventRepository.findById(t0.ctx.db, id);
  t.is(stored?.kind, 'asset.created');
  t.is(stored?.tenantId, tenantId);
  t.is(stored?.assetId, 'ast_x');
  t.deepEqual(stored?.data, { name: 'example.com' });
  t.regex(stored!.timestamp, /Z$/);

  await t.throwsAsync(
    t0.ctx.outbox.transaction(async ({ emit }) => {
      await emit({ tenantId, kind: 'asset.created', data: { name: 'rolled.back' } });
      throw new Error('boom');
    }),
  );
  const after = await eventRepository.readAfter(t0.ctx.db, id, 100, 0);
  t.false(after.events.some((e) => e.data.name === 'rolled.back'));
});

test.serial('ids increase; readAfter filters by tenant, kind and asset', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const start = await eventRepository.latestId(t0.ctx.db);
  const ids: number[] = [];
  await t0.ctx.outbox.transaction(async ({ emit }) => {
    ids.push(await emit({ tenantId: a.tenantId, kind: 'scan.created', assetId: 'ast_1', data: { n: 1 } }));
    ids.push(await emit({ tenantId: b.tenantId, kind: 'scan.created', assetId: 'ast_2', data: { n: 2 } }));
    ids.push(await emit({ tenantId: a.tenantId, kind: 'finding.new', assetId: 'ast_1', data: { n: 3 } }));
  });
  t.deepEqual([...ids].sort((x, y) => x - y), ids);
  const onlyA = await eventRepository.readAfter(t0.ctx.db, start, 100, 0, { tenantId: a.tenantId });
  t.deepEqual(onlyA.events.map((e) => e.data.n), [1, 3]);
  t.is(onlyA.lastSeenId, ids[2]);
  const kinds = await eventRepository.readAfter(t0.ctx.db, start, 100, 0, { tenantId: a.tenantId, kinds: ['finding.new'] });
  t.deepEqual(kinds.events.map((e) => e.data.n), [3]);
  const asset = await eventRepository.readAfter(t0.ctx.db, start, 100, 0, { assetId: 'ast_2' });
  t.deepEqual(asset.events.map((e) => e.data.n), [2]);
});

test.serial('a young gap in ids holds the reader back; an old one is skipped', async (t) => {
  const start = await eventRepository.latestId(t0.ctx.db);
  const now = Date.now();
  // Simulates a transaction holding id start+1 that has not committed yet.
  await t0.ctx.db('events').insert({ id: start + 2, tenant_id: null, kind: 'system.alert', asset_id: null, data: '{"n":2}', created_at: now });
  const held = await eventRepository.readAfter(t0.ctx.db, start, 100, 5_000, {}, now + 100);
  t.deepEqual(held.events, []);
  t.is(held.lastSeenId, start);
  await t0.ctx.db('events').insert({ id: start + 1, tenant_id: null, kind: 'system.alert', asset_id: null, data: '{"n":1}', created_at: now });
  const filled = await eventRepository.readAfter(t0.ctx.db, start, 100, 5_000, {}, now + 100);
  t.deepEqual(filled.events.map((e) => e.data.n), [1, 2]);
  await t0.ctx.db('events').insert({ id: start + 4, tenant_id: null, kind: 'system.alert', asset_id: null, data: '{"n":4}', created_at: now });
  const stale = await eventRepository.readAfter(t0.ctx.db, start + 2, 100, 5_000, {}, now + 10_000);
  t.deepEqual(stale.events.map((e) => e.data.n), [4]);
});
