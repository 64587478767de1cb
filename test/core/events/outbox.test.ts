import test from 'ava';
import { GapClock } from '../../../core/events/gap-clock.ts';
import { dialectOf } from '../../../core/db/create-db.ts';
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

const alert = (n: number) => ({ tenantId: null, kind: 'system.alert' as const, data: { n } });
const ns = (r: { events: Array<{ data: Record<string, unknown> }> }) => r.events.map((e) => e.data.n);
const mariadb = () => dialectOf(t0.ctx.db) === 'mysql';

test.serial('a hole that no transaction holds (a rolled-back or deleted id) is passed at once, however young the event after it', async (t) => {
  const start = await eventRepository.latestId(t0.ctx.db);
  const now = Date.now();
  await t0.ctx.db('events').insert({ id: start + 2, tenant_id: null, kind: 'system.alert', asset_id: null, data: '{"n":2}', created_at: now });
  await t0.ctx.db('events').insert({ id: start + 5, tenant_id: null, kind: 'system.alert', asset_id: null, data: '{"n":5}', created_at: now });
  const read = await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now, new GapClock());
  t.deepEqual(ns(read), [2, 5]);
  t.is(read.lastSeenId, start + 5);
});

// The MariaDB pass runs these for real; on SQLite one writer means no hole is ever held by an open transaction.
test.serial('MariaDB: a hole held by an open transaction holds the reader back however old the next event, until it commits', async (t) => {
  if (!mariadb()) return t.pass('SQLite: a single writer never leaves a hole behind a committed id');
  const start = await eventRepository.latestId(t0.ctx.db);
  const trx = await t0.ctx.db.transaction();
  try {
    const held = await eventRepository.append(trx, alert(1), Date.now());
    const next = await eventRepository.append(t0.ctx.db, alert(2), Date.now() - 3_600_000);
    t.true(held > start && next > held);
    const gaps = new GapClock();
    const now = Date.now();
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now, gaps)), []);
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now + 59_000, gaps)), [], 'still held: waited on');
    await trx.commit();
    const read = await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now + 59_500, gaps);
    t.deepEqual(ns(read), [1, 2], 'both, in id order: nothing lost');
    t.is(read.lastSeenId, next);
  } finally {
    if (!trx.isCompleted()) await trx.rollback();
  }
});

test.serial('MariaDB: a rolled-back insert\'s hole is passed at once; a transaction stuck past the grace is passed too', async (t) => {
  if (!mariadb()) return t.pass('SQLite: a single writer never leaves a hole behind a committed id');
  const start = await eventRepository.latestId(t0.ctx.db);
  const trx = await t0.ctx.db.transaction();
  await eventRepository.append(trx, alert(1), Date.now());
  await eventRepository.append(t0.ctx.db, alert(2), Date.now());
  const now = Date.now();
  t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now, new GapClock())), []);
  await trx.rollback();
  t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, now, new GapClock())), [2]);

  const stuck = await t0.ctx.db.transaction();
  try {
    const position = await eventRepository.latestId(t0.ctx.db);
    await eventRepository.append(stuck, alert(3), Date.now());
    await eventRepository.append(t0.ctx.db, alert(4), Date.now());
    const gaps = new GapClock();
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, position, 100, 60_000, {}, now, gaps)), []);
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, position, 100, 60_000, {}, now + 60_000, gaps)), [4], 'held for the whole grace since first seen: passed');
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, position, 100, 60_000, {}, now + 60_000)), [], 'a reader without a clock waits on it for as long as it is held');
  } finally {
    await stuck.rollback();
  }
});

test.serial('MariaDB: of several holes in one batch, the reader stops at the first one held and takes everything before it', async (t) => {
  if (!mariadb()) return t.pass('SQLite: a single writer never leaves a hole behind a committed id');
  const start = await eventRepository.latestId(t0.ctx.db);
  await eventRepository.append(t0.ctx.db, alert(1), Date.now());
  const rolled = await t0.ctx.db.transaction();
  await eventRepository.append(rolled, alert(2), Date.now());
  await eventRepository.append(t0.ctx.db, alert(3), Date.now());
  await rolled.rollback();
  const held = await t0.ctx.db.transaction();
  try {
    await eventRepository.append(held, alert(4), Date.now());
    await eventRepository.append(t0.ctx.db, alert(5), Date.now());
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, Date.now(), new GapClock())), [1, 3]);
    await held.commit();
    t.deepEqual(ns(await eventRepository.readAfter(t0.ctx.db, start, 100, 60_000, {}, Date.now(), new GapClock())), [1, 3, 4, 5]);
  } finally {
    if (!held.isCompleted()) await held.rollback();
  }
});
