import test from 'ava';
import { EventConsumer, INSTANCE_ID, type EventPipeline } from '../../../core/events/event-consumer.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

// The pipelined mode (the SIEM forwarder's): batch n + 1 is read and prepared while batch n
// is sent, and the cursor's guarantees are the serial mode's (event-consumer.test.ts).

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

type Hooks = Omit<EventPipeline<number[]>, 'prepare'> & { prepared?: number[][] };

/** A pipelined consumer whose prepared batch is the events' `n`s, created at the outbox's end. */
async function pipelined(name: string, hooks: Hooks, leaseMs = 5_000): Promise<EventConsumer<number[]>> {
  const c = new EventConsumer<number[]>({
    name, db: t0.ctx.db, bus: t0.ctx.bus, logger: t0.ctx.logger, pollIntervalMs: 60_000, gapGraceMs: 0, leaseMs, batchSize: 2, startAt: 'end',
    filter: { kinds: ['system.alert'] },
    pipeline: {
      ...hooks,
      prepare: (events) => {
        const batch = events.map((e) => e.data.n as number);
        hooks.prepared?.push(batch);
        return batch;
      },
    },
  });
  await c.start();
  await c.stop();
  return c;
}

async function emit(...ns: number[]): Promise<void> {
  for (const n of ns) await t0.ctx.outbox.transaction(({ emit }) => emit({ tenantId: null, kind: 'system.alert', data: { n } }));
}

const cursor = async (name: string) => Number((await t0.ctx.db('event_cursors').where({ consumer: name }).first()).last_event_id);
const latest = async () => Number((await t0.ctx.db('events').max({ id: 'id' }).first())!.id);

test.serial('the next batch is prepared while one is sent; the cursor moves past a batch only once its send resolved', async (t) => {
  const prepared: number[][] = [];
  const sent: number[][] = [];
  const settle: Array<() => void> = [];
  let idle = 0;
  const c = await pipelined('pipe-order', {
    prepared,
    send: (batch) => new Promise((resolve) => settle.push(() => (sent.push(batch), resolve()))),
    idle: async () => void idle++,
  });
  const start = await cursor('pipe-order');
  await emit(1, 2, 3, 4, 5);
  const round = c.drain();
  await eventually(async () => settle.length === 1 && prepared.length === 2);
  t.deepEqual(prepared, [[1, 2], [3, 4]], 'batch 2 is prepared while batch 1 is on its way');
  t.is(await cursor('pipe-order'), start, 'nothing is accepted yet: the cursor stays');
  settle[0]!();
  await eventually(async () => settle.length === 2 && prepared.length === 3);
  t.is(await cursor('pipe-order'), start + 2, 'past batch 1 only');
  settle[1]!();
  await eventually(async () => settle.length === 3);
  settle[2]!();
  t.is(await round, 5);
  t.deepEqual(sent, [[1, 2], [3, 4], [5]]);
  t.is(await cursor('pipe-order'), await latest());
  t.is(idle, 1, 'one idle call when the round caught up');
});

test.serial('a failed send leaves the cursor before the batch and drops the prepared next one; the retry sends it whole', async (t) => {
  let fail = true;
  const failures: string[] = [];
  const sent: number[][] = [];
  const c = await pipelined('pipe-fail', {
    send: async (batch) => {
      if (fail) throw new Error('collector down');
      sent.push(batch);
    },
    failed: async (err) => void failures.push((err as Error).message),
  });
  const start = await cursor('pipe-fail');
  await emit(10, 11, 12);
  await t.throwsAsync(c.drain(), { message: 'collector down' });
  t.deepEqual(failures, ['collector down']);
  t.is(await cursor('pipe-fail'), start, 'the cursor stays before the failed batch');
  fail = false;
  t.is(await c.drain(), 3);
  t.deepEqual(sent, [[10, 11], [12]], 'in order, nothing skipped, nothing sent twice');
  t.is(await cursor('pipe-fail'), await latest());
});

test.serial('a lease lost while a batch is on its way ends the round without moving the cursor', async (t) => {
  let sends = 0;
  let sentHooks = 0;
  const c = await pipelined('pipe-lease', {
    send: async () => {
      sends++;
      // Another process took the lease over (this one stalled past its expiry).
      await t0.ctx.db('event_cursors').where({ consumer: 'pipe-lease' }).update({ locked_by: 'other-host:1:abc', locked_until: Date.now() + 60_000 });
    },
    sent: async () => void sentHooks++,
  });
  const start = await cursor('pipe-lease');
  await emit(20, 21, 22);
  t.is(await c.drain(), 0);
  t.is(sends, 1, 'the round ended after the batch whose cursor update was refused');
  t.is(sentHooks, 0);
  t.is(await cursor('pipe-lease'), start);
  t.is((await t0.ctx.db('event_cursors').where({ consumer: 'pipe-lease' }).first()).locked_by, 'other-host:1:abc');
  t.is(await c.drain(), 0, 'kept out while the other process holds the lease');
});

test.serial('events the filter skips move the cursor without a send', async (t) => {
  let sends = 0;
  const c = await pipelined('pipe-skip', { send: async () => void sends++ });
  await t0.ctx.outbox.transaction(async ({ emit }) => {
    for (let i = 0; i < 3; i++) await emit({ tenantId: null, kind: 'scan.completed', data: { i } });
  });
  t.is(await c.drain(), 0);
  t.is(sends, 0);
  t.is(await cursor('pipe-skip'), await latest());
});

test.serial('a long round renews its lease as it goes', async (t) => {
  const realNow = Date.now;
  let skew = 0;
  const leaseMs = 10_000;
  const c = await pipelined('pipe-renew', {
    // Each send "takes" most of a lease: the round must renew it to keep the cursor.
    send: async () => void (skew += leaseMs * 0.6),
  }, leaseMs);
  await emit(30, 31, 32, 33, 34, 35);
  Date.now = () => realNow() + skew;
  try {
    t.is(await c.drain(), 6);
  } finally {
    Date.now = realNow;
  }
  const row = await t0.ctx.db('event_cursors').where({ consumer: 'pipe-renew' }).first();
  t.is(Number(row.last_event_id), await latest(), 'every batch was recorded by the lease holder');
  t.is(row.locked_by, INSTANCE_ID);
  t.true(Number(row.locked_until) > realNow() + leaseMs, 'the lease was extended past its first expiry');
});
