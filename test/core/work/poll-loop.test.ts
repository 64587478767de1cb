import test from 'ava';
import { PollLoop } from '../../../core/work/poll-loop.ts';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

test('rounds repeat at the interval, and wake() starts the next one early', async (t) => {
  let rounds = 0;
  const loop = new PollLoop({ round: async () => void rounds++, intervalMs: 60_000, onError: () => t.fail() });
  loop.start();
  await tick();
  t.is(rounds, 1);
  loop.wake();
  await tick();
  t.is(rounds, 2);
  await loop.stop();
  t.false(loop.running);
});

test('a wake-up during a round is not lost: the next round follows at once', async (t) => {
  let rounds = 0;
  let release!: () => void;
  const loop = new PollLoop({
    round: async () => {
      rounds++;
      if (rounds === 1) await new Promise<void>((r) => (release = r));
    },
    intervalMs: 60_000,
    onError: () => t.fail(),
  });
  loop.start();
  await tick();
  loop.wake(); // arrives while round 1 is still running
  release();
  await tick();
  t.is(rounds, 2);
  await loop.stop();
});

test('a round may ask for its own sleep; 0 runs the next round at once', async (t) => {
  const asked = [0, 0, 60_000];
  let rounds = 0;
  const loop = new PollLoop({ round: async () => asked[rounds++] ?? 60_000, intervalMs: 60_000, onError: () => t.fail() });
  loop.start();
  await tick();
  t.is(rounds, 3);
  await loop.stop();
});

test('a throwing round is reported and the loop goes on; stop() waits for the round in progress', async (t) => {
  const errors: string[] = [];
  let rounds = 0;
  let finished = false;
  // Stop only once the second round is under way, whatever the machine's load.
  let secondRoundStarted!: () => void;
  const inSecondRound = new Promise<void>((resolve) => (secondRoundStarted = resolve));
  const loop = new PollLoop({
    round: async () => {
      rounds++;
      if (rounds === 1) throw new Error('database away');
      secondRoundStarted();
      await tick(30);
      finished = true;
    },
    intervalMs: 5,
    onError: (err) => errors.push(err.message),
  });
  loop.start();
  await inSecondRound;
  await loop.stop();
  t.deepEqual(errors, ['database away']);
  t.true(finished, 'stop resolved only after the running round ended');
});
