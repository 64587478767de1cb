import ivm from 'isolated-vm';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mockExecutorContext } from '../../core/author-kit/index.ts';
import { createSandbox, type HostFunction } from '../../core/sandbox/sandbox.ts';
import script from '../../executors/script/index.ts';

// A forced full GC before each memory reading, so the figures are live memory, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
};

async function timed(samples: number, work: () => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await work();
    ms.push(performance.now() - started);
  }
  return ms;
}

export interface StartTimes {
  /** The process's very first isolate (module load, first compile). */
  firstMs: number;
  /** createSandbox().run('return 1'), one after the other: a fresh isolate each time, as every run gets. */
  cold: number[];
  /** The script executor's run() with the engine's wrapper, in steady state (after warm-up runs). */
  executor: number[];
  /** Reference only: one isolate kept, a new context per run (what a pool of isolates would cost). */
  reused: number[];
}

export async function startTimes(samples: number, memoryMb: number): Promise<StartTimes> {
  const started = performance.now();
  await createSandbox().run('return 1');
  const firstMs = performance.now() - started;
  const sandbox = createSandbox({ defaultMemoryMb: memoryMb });
  for (let i = 0; i < 10; i++) await sandbox.run('return 1');
  const cold = await timed(samples, async () => void (await createSandbox({ defaultMemoryMb: memoryMb }).run('return 1')));
  const ctx = () => mockExecutorContext({ actionType: 'script', config: { source: 'return 1' }, settings: { memoryMb }, sandbox: createSandbox({ defaultMemoryMb: memoryMb, defaultTimeoutMs: 30_000 }) });
  for (let i = 0; i < 10; i++) await script.run(ctx());
  const executor = await timed(samples, async () => {
    const result = await script.run(ctx());
    if (result.status !== 'completed') throw new Error(`script executor: ${JSON.stringify(result)}`);
  });
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const reused = await timed(samples, async () => {
    const context = await isolate.createContext();
    await context.eval('(async () => 1)()', { promise: true, timeout: 1000 });
    context.release();
  });
  isolate.dispose();
  return { firstMs, cold, executor, reused };
}

export interface IsolateMemory {
  count: number;
  rssBeforeMb: number;
  rssHeldMb: number;
  rssAfterMb: number;
  heapGrowthMb: number;
}

/**
 * Holds `count` isolates alive at once: each script awaits a host function that answers
 * only once all of them are waiting. Reads RSS (isolate heaps live outside Node's own
 * heap, so RSS is what counts) before, while all are held, and after they ended.
 */
export async function isolateMemory(count: number, memoryMb: number): Promise<IsolateMemory> {
  let waiting = 0;
  let release!: () => void;
  let allWaiting!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const arrived = new Promise<void>((r) => (allWaiting = r));
  const hold: HostFunction = async () => {
    waiting += 1;
    if (waiting === count) allWaiting();
    await gate;
    return 1;
  };
  const sandbox = createSandbox({ functions: { hold }, defaultMemoryMb: memoryMb, defaultTimeoutMs: 60_000 });
  await settle();
  const before = process.memoryUsage();
  const runs = Array.from({ length: count }, () => sandbox.run('const xs = Array.from({ length: 100 }, (_, i) => i); await hold(); return xs.length'));
  await arrived;
  await settle();
  const held = process.memoryUsage();
  release();
  const results = await Promise.all(runs);
  if (results.some((r) => r.result !== 100)) throw new Error('a held isolate answered wrongly');
  await settle();
  const after = process.memoryUsage();
  const mb = (b: number) => b / 2 ** 20;
  return { count, rssBeforeMb: mb(before.rss), rssHeldMb: mb(held.rss), rssAfterMb: mb(after.rss), heapGrowthMb: mb(held.heapUsed - before.heapUsed) };
}
