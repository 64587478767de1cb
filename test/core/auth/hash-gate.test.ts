import test from 'ava';
import { HashGate, ServerBusyError } from '../../../core/auth/hash-gate.ts';

/** Work that runs until the test lets it finish, counting how many run at once. */
function blockedWork() {
  const releases: Array<() => void> = [];
  const counter = { running: 0, peak: 0, started: 0 };
  const work = () =>
    new Promise<string>((resolve) => {
      counter.running++;
      counter.started++;
      counter.peak = Math.max(counter.peak, counter.running);
      releases.push(() => {
        counter.running--;
        resolve('done');
      });
    });
  const releaseAll = async () => {
    // Released work lets queued work start; keep going until nothing is left waiting.
    while (releases.length) {
      for (const release of releases.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { work, counter, releaseAll };
}

test('20 at once with 4 slots and a queue of 4: 4 run, 4 wait, 12 are refused with 503 server_busy', async (t) => {
  const gate = new HashGate({ maxConcurrent: 4, maxQueued: 4, retryAfterSeconds: 1 });
  const { work, counter, releaseAll } = blockedWork();
  const outcomes = Array.from({ length: 20 }, () => gate.run(work).then(
    (value) => value,
    (err: unknown) => err,
  ));
  await new Promise((resolve) => setImmediate(resolve));
  t.is(gate.active, 4);
  t.is(gate.queued, 4);
  t.is(counter.running, 4);
  await releaseAll();
  const results = await Promise.all(outcomes);
  t.is(results.filter((r) => r === 'done').length, 8);
  const refused = results.filter((r) => r instanceof ServerBusyError) as ServerBusyError[];
  t.is(refused.length, 12);
  t.is(refused[0]!.statusCode, 503);
  t.is(refused[0]!.code, 'server_busy');
  t.deepEqual(refused[0]!.extra, { retry_after: 1 });
  t.is(counter.peak, 4, 'never more than maxConcurrent at once');
  t.is(counter.started, 8);
  t.is(gate.active, 0);
  t.is(gate.queued, 0);
});

test('a failing work frees its slot for the next in the queue', async (t) => {
  const gate = new HashGate({ maxConcurrent: 1, maxQueued: 1 });
  let fail!: (err: Error) => void;
  const first = gate.run(() => new Promise((_, reject) => (fail = reject)));
  const second = gate.run(async () => 'second');
  await new Promise((resolve) => setImmediate(resolve));
  t.is(gate.queued, 1);
  fail(new Error('boom'));
  await t.throwsAsync(first, { message: 'boom' });
  t.is(await second, 'second');
  t.is(gate.active, 0);
});

test('a queue of 0 refuses as soon as every slot is busy', async (t) => {
  const gate = new HashGate({ maxConcurrent: 2, maxQueued: 0 });
  const { work, releaseAll } = blockedWork();
  const running = [gate.run(work), gate.run(work)];
  await t.throwsAsync(gate.run(work), { instanceOf: ServerBusyError });
  await releaseAll();
  t.deepEqual(await Promise.all(running), ['done', 'done']);
});
