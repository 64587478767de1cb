// Issue 25, items 1 and 2: a script isolate stays under its ceiling in a real worker
// process, measured from /proc. The memory bomb (WebAssembly memory, allocated outside
// the JS heap) must not grow the worker's RSS past `executors.script.memoryMb` plus the
// overhead docs/sandbox.md states; a cancelled busy script must stop burning CPU.
import test from 'ava';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { crashWorld, type CrashWorld } from '../crash/crash-world.ts';
import type { WorkerProcess } from '../../_helpers/harness/worker-process.ts';
import { cpuOver, peakRssMib, resetPeak, rssMib } from './proc-figures.ts';

const MEMORY_MB = 64;
/** What docs/sandbox.md allows on top of memoryMb: a fresh isolate, its context and compiled code. */
const OVERHEAD_MB = 64;

// 16 steps of 64 MiB, each touched: 1 GiB of WebAssembly memory when nothing stops it.
const WASM_BOMB = `
const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
for (let step = 0; step < 16; step++) {
  const from = memory.buffer.byteLength;
  memory.grow(1024);
  new Uint8Array(memory.buffer).fill(1, from);
}
return memory.buffer.byteLength;`;

// The same through ArrayBuffers, which the isolate's allocator must count as well.
const BUFFER_BOMB = `
const keep = [];
for (let step = 0; step < 16; step++) keep.push(new Uint8Array(64 * 1024 * 1024).fill(1));
return keep.length;`;

let w: CrashWorld;
let worker: WorkerProcess;
test.before(async () => {
  w = await crashWorld({ executors: { script: { memoryMb: MEMORY_MB } } });
  worker = await w.worker();
});
test.after.always(async () => {
  await w?.close();
});

const action = async (name: string, source: string, timeoutSeconds = 60) =>
  (await w.call('POST', '/api/actions', { name, type: 'script', executor: 'local', config: { source }, timeout_seconds: timeoutSeconds })).id as string;
const trigger = async (id: string) => (await w.call('POST', `/api/actions/${id}/trigger`, { parameters: {} })).execution_id as string;
const status = async (id: string) => w.call('GET', `/api/actions/executions/${id}`);
const ended = (id: string) => eventually(async () => {
  const run = await status(id);
  return ['completed', 'failed', 'timed_out', 'cancelled'].includes(run.status) ? run : undefined;
}, 60_000, 50);

async function growthOf(source: string, name: string): Promise<{ run: any; growth: number }> {
  // A first run warms the worker (isolated-vm, the wrapper), so the figure is the bomb's alone.
  await ended(await trigger(await action(`${name}-warm`, 'return 1;')));
  const base = rssMib(worker.pid);
  resetPeak(worker.pid);
  const run = await ended(await trigger(await action(name, source)));
  const growth = peakRssMib(worker.pid) - base;
  return { run, growth };
}

test.serial('a WebAssembly memory bomb cannot grow the worker past memoryMb + overhead', async (t) => {
  const { run, growth } = await growthOf(WASM_BOMB, 'wasm-bomb');
  t.log(`wasm bomb: run ${run.status} (${run.error?.code}: ${run.error?.message}); worker peak RSS growth ${growth.toFixed(0)} MiB`);
  t.is(run.status, 'failed');
  t.true(growth <= MEMORY_MB + OVERHEAD_MB, `RSS grew ${growth.toFixed(0)} MiB, more than ${MEMORY_MB} + ${OVERHEAD_MB}`);
});

test.serial('an ArrayBuffer bomb is held to the same ceiling', async (t) => {
  const { run, growth } = await growthOf(BUFFER_BOMB, 'buffer-bomb');
  t.log(`buffer bomb: run ${run.status} (${run.error?.code}); worker peak RSS growth ${growth.toFixed(0)} MiB`);
  t.is(run.status, 'failed');
  t.true(growth <= MEMORY_MB + OVERHEAD_MB, `RSS grew ${growth.toFixed(0)} MiB, more than ${MEMORY_MB} + ${OVERHEAD_MB}`);
});

test.serial('a cancelled busy script stops: the worker is idle again once the run reads cancelled', async (t) => {
  const idle = await cpuOver(worker.pid, 2000);
  const busy = await action('busy', 'for (;;) {}', 600);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const id = await trigger(busy);
    await eventually(async () => (await status(id)).status === 'running', 30_000);
    const asked = Date.now();
    await w.call('POST', `/api/actions/executions/${id}/cancel`, {});
    const run = await ended(id);
    runs.push({ status: run.status, ms: Date.now() - asked });
  }
  t.log(`cancel → cancelled: ${runs.map((r) => `${r.status} in ${r.ms} ms`).join(', ')}`);
  for (const r of runs) t.is(r.status, 'cancelled');
  // Three isolates left spinning would burn up to 2 cores (this machine has 2); an idle worker about none.
  const cpu = await cpuOver(worker.pid, 2000);
  t.log(`worker CPU over 2 s: ${idle.toFixed(2)} s idle before, ${cpu.toFixed(2)} s after the cancels`);
  // One isolate still spinning would add about 2 CPU seconds (a core) to these 2 s; 1 leaves room for a loaded machine.
  t.true(cpu < 1, `the worker used ${cpu.toFixed(2)} CPU seconds in 2 s after every run was cancelled`);
});
