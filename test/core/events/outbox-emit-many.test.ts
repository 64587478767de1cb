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

test.serial('emitMany appends every event in order, in the transaction, and wakes consumers', async (t) => {
  const { tenantId } = await t0.tenant();
  let wakes = 0;
  const unsubscribe = t0.ctx.bus.subscribe(() => (wakes += 1));
  const start = await eventRepository.latestId(t0.ctx.db);
  const events = Array.from({ length: 450 }, (_, i) => ({ tenantId, kind: 'asset.created' as const, assetId: `ast_${i}`, data: { n: i } }));
  await t0.ctx.outbox.transaction(async ({ emitMany }) => emitMany(events));
  unsubscribe();
  t.is(wakes, 1);
  const { events: stored } = await eventRepository.readAfter(t0.ctx.db, start, 1000, 0, { tenantId });
  t.deepEqual(stored.map((e) => e.data.n), events.map((e) => e.data.n));
  t.is(stored[7]!.assetId, 'ast_7');

  const before = await eventRepository.latestId(t0.ctx.db);
  await t.throwsAsync(t0.ctx.outbox.transaction(async ({ emitMany }) => {
    await emitMany(events.slice(0, 300));
    throw new Error('boom');
  }));
  t.is((await eventRepository.readAfter(t0.ctx.db, before, 1000, 0, { tenantId })).events.length, 0);
});
