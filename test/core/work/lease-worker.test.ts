import test from 'ava';
import { createDb, type Db } from '../../../core/db/create-db.ts';
import { createLogger } from '../../../core/logger.ts';
import { LeaseQueue, type LeaseQueueSpec } from '../../../core/work/lease-queue.ts';
import { LeaseWorker, type Lease, type LeaseWorkerOptions } from '../../../core/work/lease-worker.ts';
import { Heartbeat } from '../../../core/work/heartbeat.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

let database: TestDatabase;
let db: Db;
let table = 0;
const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  database = await createTestDatabase();
  db = createDb(database.url);
});

test.after.always(async () => {
  await db.destroy();
  await database.drop();
});

/** A fresh jobs table with `rows` (id, tenant) and a queue over it. */
async function jobs(rows: Array<{ id: string; tenant?: string }>, spec: Partial<LeaseQueueSpec> = {}): Promise<{ name: string; queue: LeaseQueue }> {
  const name = `lw_jobs_${process.pid}_${++table}`;
  await db.schema.createTable(name, (t) => {
    t.string('id', 40).primary();
    t.string('tenant', 40).notNullable().defaultTo('t1');
    t.string('status', 20).notNullable().defaultTo('queued');
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.integer('claims').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable().defaultTo(0);
    t.string('locked_by', 120).nullable();
    t.bigInteger('locked_until').notNullable().defaultTo(0);
  });
  if (rows.length) await db(name).insert(rows.map((r, i) => ({ tenant: 't1', created_at: i, ...r })));
  const queue = new LeaseQueue({
    table: name,
    ready: { status: 'queued' },
    held: { status: 'running' },
    reclaim: 'first',
    order: [{ column: 'created_at' }],
    onClaim: (x) => ({ status: 'running', claims: x.raw('claims + 1') }),
    onRelease: (x) => ({ status: 'queued', claims: x.raw('claims - 1') }),
    cancelWhen: { cancel_requested: true },
    shareColumn: 'tenant',
    ...spec,
  });
  return { name, queue };
}

function worker(queue: LeaseQueue, run: (lease: Lease) => Promise<void>, o: Partial<LeaseWorkerOptions> = {}): LeaseWorker {
  return new LeaseWorker({ name: 'test', db, queue, logger, tokenTag: 't', pollIntervalMs: 50, concurrency: () => 2, leaseMs: () => 300, cancelPollMs: 50, run, ...o });
}

/** Resolves when `signal` aborts, with its reason. */
const aborted = (signal: AbortSignal) => new Promise<string>((r) => (signal.aborted ? r(String(signal.reason)) : signal.addEventListener('abort', () => r(String(signal.reason)))));

test.serial('runs claimed rows up to its concurrency and keeps their leases alive past the lease time', async (t) => {
  const { name, queue } = await jobs([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const seen: string[] = [];
  const w = worker(queue, async (lease) => {
    seen.push(lease.id);
    await gate;
    await queue.finish(db, lease.id, lease.token, { status: 'done' });
  });
  w.start();
  await sleep(200);
  t.deepEqual(seen, ['a', 'b'], 'two at a time');
  await sleep(700); // more than twice the 300 ms lease: only the heartbeat keeps it
  t.deepEqual(await queue.claim(db, { token: 'other', now: Date.now(), leaseMs: 300 }), ['c'], 'running rows are still held');
  release();
  await sleep(200);
  await w.stop();
  t.deepEqual((await db(name).orderBy('id').select('status')).map((r: { status: string }) => r.status), ['done', 'done', 'running']);
});

test.serial('a lease taken over aborts the job as lost, and a lost job is not released', async (t) => {
  const { name, queue } = await jobs([{ id: 'a' }]);
  let reason: Promise<string> | null = null;
  const w = worker(queue, async (lease) => {
    reason = aborted(lease.signal);
    await reason;
  });
  w.start();
  await sleep(100);
  await db(name).where({ id: 'a' }).update({ locked_by: 'thief' });
  t.is(await reason!, 'lost');
  await w.stop();
  t.like(await db(name).where({ id: 'a' }).first(), { locked_by: 'thief', status: 'running' });
});

test.serial('a cancel flag stops the job within the cancel read period, not the heartbeat period', async (t) => {
  const { name, queue } = await jobs([{ id: 'a' }]);
  let reason: Promise<string> | null = null;
  const w = worker(queue, async (lease) => {
    reason = aborted(lease.signal);
    await reason;
    await queue.finish(db, lease.id, lease.token, { status: 'cancelled' });
  }, { heartbeatMs: () => 60_000, leaseMs: () => 180_000 });
  w.start();
  await sleep(100);
  const at = Date.now();
  await db(name).where({ id: 'a' }).update({ cancel_requested: true });
  t.is(await reason!, 'cancelled');
  t.true(Date.now() - at < 1000, 'seen within a second');
  await w.stop();
  t.like(await db(name).where({ id: 'a' }).first(), { status: 'cancelled', locked_by: null });
});

test.serial('shutdown aborts running jobs, waits for them to settle and releases what they left held', async (t) => {
  const { name, queue } = await jobs([{ id: 'a' }]);
  let settled = false;
  const w = worker(queue, async (lease) => {
    await aborted(lease.signal);
    await sleep(100);
    settled = true;
  });
  w.start();
  await sleep(100);
  t.true(w.runs('a'));
  await w.stop();
  t.true(settled, 'stop waited for the job');
  const row = await db(name).where({ id: 'a' }).first();
  t.like(row, { status: 'queued', locked_by: null }, 'released with the spec\'s onRelease');
  t.is(Number(row.claims), 0);
});

test.serial('fair share: a tenant at its share is skipped while another tenant\'s row waits', async (t) => {
  const rows = [...['a1', 'a2', 'a3', 'a4'].map((id) => ({ id, tenant: 'A' })), { id: 'b1', tenant: 'B' }];
  const { queue } = await jobs(rows);
  const gate = new Promise<void>(() => {});
  const seen: string[] = [];
  const w = worker(queue, async (lease) => {
    seen.push(lease.id);
    await Promise.race([gate, aborted(lease.signal)]);
  }, {
    concurrency: () => 3,
    share: { keyOf: async (id) => (id.startsWith('a') ? 'A' : 'B'), slots: async () => 2 },
  });
  w.start();
  await sleep(200);
  t.deepEqual(seen.sort(), ['a1', 'a2', 'b1'], 'A holds its share (2 of 3); B\'s row got the third slot although it was queued last');
  await w.stop();
});

test.serial('the lost-lease sweep runs before claims, at most once per period', async (t) => {
  const { queue } = await jobs([]);
  let sweeps = 0;
  const w = worker(queue, async () => {}, { pollIntervalMs: 20, sweep: { everyMs: () => 10_000, run: async () => void sweeps++ } });
  w.start();
  await sleep(150);
  await w.stop();
  t.is(sweeps, 1);
});

test('a heartbeat never overlaps itself, and stop waits for the beat in flight', async (t) => {
  let inFlight = 0;
  let most = 0;
  let beats = 0;
  const hb = new Heartbeat({
    everyMs: 10,
    beat: async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(50);
      beats++;
      inFlight--;
    },
  }).start();
  await sleep(120);
  await hb.stop();
  t.is(most, 1);
  t.is(inFlight, 0, 'stop resolved after the last beat ended');
  const after = beats;
  await sleep(60);
  t.is(beats, after, 'no beat after stop');
});
