import test from 'ava';
import { createDb, type Db } from '../../../core/db/create-db.ts';
import { LeaseQueue, type LeaseQueueSpec } from '../../../core/work/lease-queue.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

// A queue table of its own (as action runs or playbook steps will have), on SQLite or MariaDB
// per DATABASE_URL, with several pools so claims on MariaDB really run concurrently.
let database: TestDatabase;
const pools: Db[] = [];
let table = 0;

test.before(async () => {
  database = await createTestDatabase();
  for (let i = 0; i < 4; i++) pools.push(createDb(database.url));
});

test.after.always(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  await database.drop();
});

const db = () => pools[0]!;
const T0 = 1_700_000_000_000;
const LEASE = 60_000;

interface Job {
  id: string;
  tenant?: string;
  priority?: number;
  run_at?: number;
  created_at?: number;
  status?: string;
}

/** A fresh jobs table with `rows`, and a queue over it. */
async function queue(rows: Job[], spec: Partial<LeaseQueueSpec> = {}): Promise<{ name: string; q: LeaseQueue }> {
  const name = `lq_jobs_${process.pid}_${++table}`;
  await db().schema.createTable(name, (t) => {
    t.string('id', 40).primary();
    t.string('tenant', 40).notNullable().defaultTo('t1').index();
    t.string('status', 20).notNullable().defaultTo('queued');
    t.integer('priority').notNullable().defaultTo(0);
    t.bigInteger('run_at').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable().defaultTo(0);
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('locked_by', 120).nullable();
    t.bigInteger('locked_until').notNullable().defaultTo(0);
  });
  if (rows.length) await db()(name).insert(rows.map((r, i) => ({ created_at: i, ...r })));
  const q = new LeaseQueue({
    table: name,
    ready: { status: 'queued' },
    held: { status: 'running' },
    reclaim: 'first',
    order: [{ column: 'created_at' }, { column: 'id' }],
    onClaim: (x) => ({ status: 'running', attempts: x.raw('attempts + 1') }),
    ...spec,
  });
  return { name, q };
}

const ids = (n: number, prefix = 'j') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${String(i).padStart(3, '0')}` }));

test.serial('concurrent claimers on several connections never take the same row, and together take every row', async (t) => {
  const { q } = await queue(ids(40));
  const claims = await Promise.all(pools.flatMap((p, i) => [0, 1, 2].map((j) => q.claim(p, { token: `w${i}-${j}`, now: T0, leaseMs: LEASE, limit: 3 }))));
  const claimed = claims.flat();
  t.is(new Set(claimed).size, claimed.length, 'no row was claimed twice');
  const rest = await q.claim(db(), { token: 'late', now: T0, leaseMs: LEASE, limit: 100 });
  t.is(claimed.length + rest.length, 40);
  t.deepEqual(await q.claim(pools[1]!, { token: 'again', now: T0, leaseMs: LEASE, limit: 100 }), [], 'held rows are not claimable while their lease runs');
});

test.serial('one-at-a-time claims racing on every connection still take each row once', async (t) => {
  const { q } = await queue(ids(12));
  const taken: string[] = [];
  await Promise.all(pools.map(async (p, i) => {
    for (let n = 0; ; n++) {
      const [id] = await q.claim(p, { token: `solo-${i}-${n}`, now: T0, leaseMs: LEASE });
      if (!id) return;
      taken.push(id);
    }
  }));
  t.is(taken.length, 12);
  t.is(new Set(taken).size, 12);
});

test.serial('an expired lease is reclaimed (before queued rows) and the old token can no longer renew, update or finish', async (t) => {
  const { name, q } = await queue(ids(2));
  const [first] = await q.claim(db(), { token: 'old', now: T0, leaseMs: 1000 });
  t.is(first, 'j000');
  t.true(await q.renew(db(), first!, 'old', T0 + 2000), 'the holder renews');
  t.deepEqual(await q.claim(db(), { token: 'early', now: T0 + 1500, leaseMs: LEASE }), ['j001'], 'a renewed lease is not reclaimed');
  const [again] = await q.claim(db(), { token: 'new', now: T0 + 2001, leaseMs: LEASE });
  t.is(again, first, 'the expired lease is claimed again');
  t.is(Number((await db()(name).where({ id: first }).first()).attempts), 2);
  t.false(await q.renew(db(), first!, 'old', T0 + 90_000));
  t.false(await q.update(db(), first!, 'old', { status: 'running' }));
  t.false(await q.finish(db(), first!, 'old', { status: 'done' }));
  t.true(await q.finish(db(), first!, 'new', { status: 'done' }));
  const row = await db()(name).where({ id: first }).first();
  t.like(row, { status: 'done', locked_by: null });
  t.is(Number(row.locked_until), 0);
  t.false(await q.renew(db(), first!, 'new', T0 + 90_000), 'a finished row is no longer held');
});

test.serial('higher priority first, then the configured order', async (t) => {
  const { q } = await queue([{ id: 'low', priority: 0 }, { id: 'high', priority: 9 }, { id: 'mid-old', priority: 5 }, { id: 'mid-new', priority: 5 }], { priorityColumn: 'priority' });
  const order: string[] = [];
  for (let i = 0; i < 4; i++) order.push(...(await q.claim(db(), { token: `p${i}`, now: T0, leaseMs: LEASE })));
  t.deepEqual(order, ['high', 'mid-old', 'mid-new', 'low']);
});

test.serial('a per-key limit holds at most N rows of a key at once; finishing one frees a slot', async (t) => {
  const rows = [...ids(5, 'a').map((r) => ({ ...r, tenant: 'ten-a' })), ...ids(2, 'b').map((r) => ({ ...r, tenant: 'ten-b' }))];
  const { name, q } = await queue(rows, { perKey: { column: 'tenant', limit: 2 } });
  const claimed = await q.claim(db(), { token: 'k1', now: T0, leaseMs: LEASE, limit: 10 });
  t.is(claimed.length, 4);
  const held = async () => (await db()(name).where('locked_until', '>=', T0).select('tenant')).map((r: { tenant: string }) => r.tenant);
  t.is((await held()).filter((x) => x === 'ten-a').length, 2);
  t.is((await held()).filter((x) => x === 'ten-b').length, 2);
  t.deepEqual(await q.claim(db(), { token: 'k2', now: T0, leaseMs: LEASE, limit: 10 }), [], 'both keys are full');
  t.true(await q.finish(db(), claimed.find((id) => id.startsWith('a'))!, 'k1', { status: 'done' }));
  const next = await q.claim(db(), { token: 'k3', now: T0, leaseMs: LEASE, limit: 10 });
  t.is(next.length, 1);
  t.true(next[0]!.startsWith('a'));
});

test.serial('a per-key limit holds under concurrent claimers', async (t) => {
  const rows = ['x', 'y', 'z'].flatMap((k) => ids(6, k).map((r) => ({ ...r, tenant: `ten-${k}` })));
  const { name, q } = await queue(rows, { perKey: { column: 'tenant', limit: 2 } });
  for (let round = 0; round < 3; round++) {
    await Promise.all(pools.flatMap((p, i) => [0, 1].map((j) => q.claim(p, { token: `c${round}-${i}-${j}`, now: T0, leaseMs: LEASE, limit: 3 }))));
  }
  const held = async () => (await db()(name).where('locked_until', '>=', T0).select('tenant')) as Array<{ tenant: string }>;
  for (const key of ['ten-x', 'ten-y', 'ten-z']) t.true((await held()).filter((r) => r.tenant === key).length <= 2, `${key}: never over the limit`);
  // A claimer that lost a race (or a deadlock) claims nothing that time; a last pass fills every key.
  await q.claim(db(), { token: 'fill', now: T0, leaseMs: LEASE, limit: 10 });
  for (const key of ['ten-x', 'ten-y', 'ten-z']) t.is((await held()).filter((r) => r.tenant === key).length, 2, key);
});

test.serial('a row due in the future is not claimed until the injected clock passes its due time', async (t) => {
  const { q } = await queue([{ id: 'later', run_at: T0 + 30_000 }, { id: 'now', run_at: T0 }], { dueColumn: 'run_at' });
  t.deepEqual(await q.claim(db(), { token: 'd1', now: T0, leaseMs: LEASE, limit: 5 }), ['now']);
  t.deepEqual(await q.claim(db(), { token: 'd2', now: T0 + 29_999, leaseMs: LEASE, limit: 5 }), []);
  t.deepEqual(await q.claim(db(), { token: 'd3', now: T0 + 30_000, leaseMs: LEASE, limit: 5 }), ['later']);
});

test.serial('a retry at a due time: finish back to ready with a later due time', async (t) => {
  const { q } = await queue([{ id: 'flaky' }], { dueColumn: 'run_at' });
  t.deepEqual(await q.claim(db(), { token: 'r1', now: T0, leaseMs: LEASE }), ['flaky']);
  t.true(await q.finish(db(), 'flaky', 'r1', { status: 'queued', run_at: T0 + 5000 }));
  t.deepEqual(await q.claim(db(), { token: 'r2', now: T0 + 4999, leaseMs: LEASE }), []);
  t.deepEqual(await q.claim(db(), { token: 'r3', now: T0 + 5000, leaseMs: LEASE }), ['flaky']);
});

test.serial('release makes a row claimable again at once, undoing what the claim set', async (t) => {
  const { name, q } = await queue(ids(1));
  const [id] = await q.claim(db(), { token: 'h1', now: T0, leaseMs: LEASE });
  t.deepEqual(await q.claim(db(), { token: 'h2', now: T0 + 1, leaseMs: LEASE }), []);
  t.true(await q.release(db(), id!, 'h1', { status: 'queued', attempts: db().raw('attempts - 1') }));
  t.false(await q.release(db(), id!, 'h1'), 'only once');
  t.deepEqual(await q.claim(db(), { token: 'h3', now: T0 + 2, leaseMs: LEASE }), [id]);
  t.is(Number((await db()(name).where({ id }).first()).attempts), 1);
});

test.serial("expired held rows mixed in by age ('inOrder') and a known row claimed by id", async (t) => {
  const { name, q } = await queue(ids(2), { reclaim: 'inOrder' });
  await db()(name).where({ id: 'j001' }).update({ status: 'running', locked_by: 'dead', locked_until: T0 - 1 });
  t.deepEqual(await q.claim(db(), { token: 'i1', now: T0, leaseMs: LEASE }), ['j000'], 'the older queued row goes first');
  t.deepEqual(await q.claim(db(), { token: 'i2', now: T0, leaseMs: LEASE }), ['j001']);
  // claimById: free or already the holder's (a named cursor re-leased by its own process).
  t.false(await q.claimById(db(), 'j001', { token: 'other', now: T0 + 10, leaseMs: LEASE }));
  t.true(await q.claimById(db(), 'j001', { token: 'i2', now: T0 + 10, leaseMs: LEASE }));
  t.true(await q.claimById(db(), 'j001', { token: 'other', now: T0 + 10 + LEASE + 1, leaseMs: LEASE }));
});

test.serial("update and finish with `also` write nothing once the extra condition stopped holding (a cancel asked for after the claim)", async (t) => {
  const { name, q } = await queue(ids(1));
  await q.claim(db(), { token: 'w', now: T0, leaseMs: LEASE });
  await db()(name).where({ id: 'j000' }).update({ priority: 5 });
  t.false(await q.update(db(), 'j000', 'w', { attempts: 9 }, { priority: 0 }));
  t.false(await q.finish(db(), 'j000', 'w', { status: 'done' }, { priority: 0 }));
  t.like(await db()(name).where({ id: 'j000' }).first(), { status: 'running', attempts: 1, locked_by: 'w' });
  t.true(await q.finish(db(), 'j000', 'w', { status: 'done' }, { priority: 5 }));
  t.like(await db()(name).where({ id: 'j000' }).first(), { status: 'done', locked_by: null });
});

test.serial('endWhere ends the matching rows whoever holds them; the holder can then write nothing', async (t) => {
  const { name, q } = await queue([...ids(3).map((r) => ({ ...r, tenant: 't1' })), { id: 'other', tenant: 't2' }]);
  await q.claim(db(), { token: 'w', now: T0, leaseMs: LEASE, limit: 2 });
  const n = await q.endWhere(db(), { tenant: 't1', status: ['queued', 'running'] }, { status: 'cancelled' }, (r) => void r.where('created_at', '<', 2));
  t.is(n, 2);
  t.false(await q.renew(db(), 'j000', 'w', T0 + LEASE * 2));
  const rows = (await db()(name).orderBy('id')) as Array<{ id: string; status: string; locked_by: string | null }>;
  t.deepEqual(rows.map((r) => [r.id, r.status, r.locked_by]), [['j000', 'cancelled', null], ['j001', 'cancelled', null], ['j002', 'queued', null], ['other', 'queued', null]]);
});
