import test from 'ava';
import { PollLoop } from '../../../core/work/poll-loop.ts';
import { BackgroundRegistry } from '../../../core/work/background-registry.ts';
import { LoopMonitor, startWatched, UNATTRIBUTED } from '../../../core/work/loop-monitor.ts';

const settle = () => new Promise((r) => setTimeout(r, 20));

/** A loop on a hand-moved clock whose rounds end when the test says so. */
function heldLoop(clock: { now: number }, intervalMs = 1000) {
  let release: (() => void) | null = null;
  let rounds = 0;
  const loop = new PollLoop({
    round: () => new Promise<void>((r) => {
      rounds++;
      release = r;
    }),
    intervalMs,
    onError: () => undefined,
    clock: () => clock.now,
  });
  return {
    loop,
    rounds: () => rounds,
    endRound: () => {
      release?.();
      release = null;
    },
    async stop() {
      const stopped = loop.stop();
      this.endRound();
      await stopped;
    },
  };
}

test.serial('a round running longer than the bound lags by its age; ending it clears the lag', async (t) => {
  const clock = { now: 1_000_000 };
  const monitor = new LoopMonitor();
  const held = heldLoop(clock);
  startWatched(monitor, 'exports', () => held.loop.start());
  await settle();
  t.like(held.loop.health(), { running: true, roundStartedAt: 1_000_000, lastTickAt: 1_000_000, lagMs: 0 });
  t.deepEqual(monitor.report(5000), [{ service: 'exports', loops: 1, lastTickAt: 1_000_000, lagMs: 0, ok: true }]);

  clock.now += 5001;
  t.like(monitor.report(5000)[0], { service: 'exports', lagMs: 5001, ok: false });

  held.endRound();
  await settle();
  t.like(held.loop.health(), { roundStartedAt: null, lastTickAt: 1_005_001, lagMs: 0 });
  t.like(monitor.report(5000)[0], { ok: true, lagMs: 0 });
  await held.stop();
});

test.serial('between rounds, a next round later than planned by more than the bound lags', async (t) => {
  const clock = { now: 2_000_000 };
  const monitor = new LoopMonitor();
  const held = heldLoop(clock, 60_000);
  startWatched(monitor, 'retention', () => held.loop.start());
  await settle();
  held.endRound(); // next round planned 60 s later on the loop's clock
  await settle();
  clock.now += 60_000;
  t.is(held.loop.health().lagMs, 0, 'on time');
  clock.now += 5001;
  t.is(held.loop.health().lagMs, 5001);
  t.false(monitor.report(5000)[0]!.ok);
  await held.stop();
});

test.serial('a stopped loop leaves its monitor; the worst loop of a service counts', async (t) => {
  const clock = { now: 3_000_000 };
  const monitor = new LoopMonitor();
  const a = heldLoop(clock);
  const b = heldLoop(clock);
  startWatched(monitor, 'webhooks', () => a.loop.start());
  clock.now += 10;
  startWatched(monitor, 'webhooks', () => b.loop.start());
  await settle();
  clock.now += 100;
  t.deepEqual(monitor.report(50), [{ service: 'webhooks', loops: 2, lastTickAt: 3_000_000, lagMs: 110, ok: false }]);
  await a.stop();
  t.deepEqual(monitor.report(50).map((s) => [s.loops, s.lagMs]), [[1, 100]]);
  await b.stop();
  t.deepEqual(monitor.report(50), []);
});

test.serial('the registry attributes loops started by a service, also later from its callbacks', async (t) => {
  const clock = { now: 4_000_000 };
  const direct = heldLoop(clock);
  const later = heldLoop(clock);
  let timer: NodeJS.Timeout | undefined;
  const registry = new BackgroundRegistry()
    .register({ name: 'scans', roles: ['worker'], start: () => direct.loop.start(), stop: () => direct.stop() })
    .register({
      name: 'siem',
      roles: ['worker'],
      // Like SIEM forwarding: a consumer started by a timer the service set up.
      start: () => void (timer = setTimeout(() => later.loop.start(), 5)),
      stop: () => later.stop(),
    })
    .register({ name: 'scheduler', roles: ['scheduler'], start: () => undefined, stop: () => undefined });
  await registry.start(['worker']);
  await new Promise((r) => setTimeout(r, 30));
  t.deepEqual(registry.loops.report(1000).map((s) => s.service), ['scans', 'siem']);
  clearTimeout(timer);
  await registry.stop();
  t.deepEqual(registry.loops.report(1000), []);
});

test.serial('a loop started outside any service is reported by every monitor as unattributed', async (t) => {
  const clock = { now: 5_000_000 };
  const stray = heldLoop(clock);
  stray.loop.start();
  await settle();
  const report = new LoopMonitor().report(1000);
  t.true(report.some((s) => s.service === UNATTRIBUTED && s.loops >= 1));
  await stray.stop();
  t.false(new LoopMonitor().report(1000).some((s) => s.service === UNATTRIBUTED));
});
