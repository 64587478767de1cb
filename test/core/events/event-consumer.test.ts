import test from 'ava';
import { EventConsumer, INSTANCE_ID } from '../../../core/events/event-consumer.ts';
import type { PlatformEvent } from '../../../core/plugin-api/index.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

function consumer(name: string, handle: (events: PlatformEvent[]) => Promise<void>, pollIntervalMs = 60_000, startAt: 'beginning' | 'end' = 'end'): EventConsumer {
  return new EventConsumer({ name, db: t0.ctx.db, bus: t0.ctx.bus, logger: t0.ctx.logger, handle, pollIntervalMs, gapGraceMs: 0, leaseMs: 5_000, batchSize: 2, startAt });
}

async function emit(n: number): Promise<void> {
  await t0.ctx.outbox.transaction(({ emit }) => emit({ tenantId: null, kind: 'system.alert', data: { n } }));
}

test.serial('handles events in order from a durable cursor; a restart resumes after the last handled', async (t) => {
  const seen: number[] = [];
  const first = consumer('test-durable', async (events) => void seen.push(...events.map((e) => e.data.n as number)));
  await first.start();
  await first.stop();
  for (const n of [1, 2, 3]) await emit(n);
  await first.drain();
  t.deepEqual(seen.slice(-3), [1, 2, 3]);
  const second = consumer('test-durable', async (events) => void seen.push(...events.map((e) => e.data.n as number)));
  await emit(4);
  await second.drain();
  t.deepEqual(seen.slice(-4), [1, 2, 3, 4], 'nothing replayed, nothing lost');
});

test.serial('a failing handler leaves the cursor in place and the batch is retried', async (t) => {
  let fail = true;
  const seen: number[] = [];
  const c = consumer('test-retry', async (events) => {
    if (fail) throw new Error('receiver down');
    seen.push(...events.map((e) => e.data.n as number));
  });
  await c.start();
  await c.stop();
  await c.drain();
  await emit(10);
  await t.throwsAsync(c.drain(), { message: 'receiver down' });
  fail = false;
  await c.drain();
  t.deepEqual(seen, [10]);
});

test.serial('a lease held by another process keeps this one out until it expires', async (t) => {
  const seen: number[] = [];
  const c = consumer('test-lease', async (events) => void seen.push(...events.map((e) => e.data.n as number)));
  await c.start();
  await c.stop();
  await c.drain();
  await t0.ctx.db('event_cursors').where({ consumer: 'test-lease' }).update({ locked_by: 'other-host:1:abc', locked_until: Date.now() + 60_000 });
  await emit(20);
  t.is(await c.drain(), 0);
  t.deepEqual(seen, []);
  await t0.ctx.db('event_cursors').where({ consumer: 'test-lease' }).update({ locked_until: Date.now() - 1 });
  await c.drain();
  t.deepEqual(seen, [20]);
  const row = await t0.ctx.db('event_cursors').where({ consumer: 'test-lease' }).first();
  t.is(row.locked_by, INSTANCE_ID);
});

test.serial('the bus wakes a running consumer without waiting for its poll', async (t) => {
  const seen: number[] = [];
  let notify: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (notify = resolve));
  const c = consumer('test-wake', async (events) => {
    seen.push(...events.map((e) => e.data.n as number));
    if (seen.includes(30)) notify();
  }, 600_000);
  await c.start();
  await new Promise((r) => setTimeout(r, 50));
  await emit(30);
  await arrived;
  await c.stop();
  t.true(seen.includes(30));
});

test.serial('startAt end skips the existing backlog; beginning reads it', async (t) => {
  await emit(40);
  const late: number[] = [];
  const early: number[] = [];
  const fromEnd = consumer('test-end', async (events) => void late.push(...events.map((e) => e.data.n as number)));
  const fromStart = consumer('test-beginning', async (events) => void early.push(...events.map((e) => e.data.n as number)), 60_000, 'beginning');
  await fromEnd.start();
  await fromStart.start();
  await fromEnd.stop();
  await fromStart.stop();
  await emit(41);
  await fromEnd.drain();
  await fromStart.drain();
  t.deepEqual(late, [41]);
  t.true(early.includes(40) && early.includes(41));
});
