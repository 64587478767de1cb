import test from 'ava';
import { createSandbox } from '../../../core/sandbox/sandbox.ts';
import { SandboxError } from '../../../core/sandbox/sandbox-error.ts';

const sandbox = createSandbox();

async function failure(run: Promise<unknown>): Promise<SandboxError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof SandboxError)) throw new Error(`expected a SandboxError, got ${String(err)}`);
  return err;
}

test('runs the code as an async function of input and returns its JSON result with the console.log lines', async (t) => {
  const out = await sandbox.run('console.log("sum of", input.values, 42); return { sum: input.values.reduce((a, b) => a + b, 0), at: input.at };', {
    input: { values: [1, 2, 3], at: 'now' },
  });
  t.deepEqual(out, { result: { sum: 6, at: 'now' }, logs: ['sum of [1,2,3] 42'] });
  t.deepEqual(await sandbox.run('await null; return;'), { result: null, logs: [] }, 'undefined comes back as null');
});

test('an infinite loop is stopped at the time limit', async (t) => {
  const started = Date.now();
  const err = await failure(sandbox.run('while (true) {}', { timeoutMs: 200 }));
  t.is(err.code, 'timeout');
  t.regex(err.message, /timed out after 200 ms/);
  t.true(Date.now() - started < 3000);
});

test('a promise that never settles is stopped at the wall-clock limit', async (t) => {
  const err = await failure(sandbox.run('await new Promise(() => {});', { timeoutMs: 200 }));
  t.is(err.code, 'timeout');
});

test('an allocation bomb hits the memory limit, and the next run is unaffected', async (t) => {
  const err = await failure(sandbox.run('const keep = []; for (;;) keep.push(new Array(1e6).fill(keep.length));', { memoryMb: 16, timeoutMs: 10_000 }));
  t.is(err.code, 'memory_limit');
  t.deepEqual((await sandbox.run('return 1 + 1;')).result, 2);
});

test('the isolate has no require, process, fetch, timers or module loading', async (t) => {
  const { result } = await sandbox.run('return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof module, typeof globalThis.$log, typeof globalThis.$names];');
  t.deepEqual(result, ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  const err = await failure(sandbox.run('return await import("node:fs");'));
  t.is(err.code, 'script_error');
});

test('only JSON crosses: functions and cycles are refused both ways', async (t) => {
  t.is((await failure(sandbox.run('return () => 1;'))).code, 'invalid_value');
  t.is((await failure(sandbox.run('const a = {}; a.self = a; return a;'))).code, 'invalid_value');
  t.is((await failure(sandbox.run('return 1;', { input: { f: (() => 1) as never } }))).code, 'invalid_value');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.is((await failure(sandbox.run('return 1;', { input: cyclic as never }))).code, 'invalid_value');
  const thrown = await failure(sandbox.run('throw new Error("boom");'));
  t.is(thrown.code, 'script_error');
  t.is(thrown.message, 'boom');
});

test('host functions handed in are callable by name, with JSON arguments and results', async (t) => {
  const calls: unknown[] = [];
  const withHost = createSandbox({
    functions: {
      lookup: async (ip) => {
        calls.push(ip);
        return { ip, blocked: ip === '203.0.113.9' };
      },
      fail: () => {
        throw new Error('host says no');
      },
    },
  });
  const { result } = await withHost.run('const a = await lookup(input.ip); const b = await lookup("192.0.2.1"); return [a.blocked, b.blocked];', { input: { ip: '203.0.113.9' } });
  t.deepEqual(result, [true, false]);
  t.deepEqual(calls, ['203.0.113.9', '192.0.2.1']);
  t.is((await failure(withHost.run('return lookup(() => 1);'))).code, 'invalid_value');
  t.regex((await failure(withHost.run('return await fail();'))).message, /host says no/);
  t.is((await sandbox.run('return typeof lookup;')).result, 'undefined', 'another sandbox does not see them');
});

test('WebAssembly is not available: its memory would live outside the heap limit', async (t) => {
  t.deepEqual((await sandbox.run('return typeof WebAssembly;')).result, 'undefined');
  const err = await failure(sandbox.run('new WebAssembly.Memory({ initial: 1, maximum: 65536 });'));
  t.is(err.code, 'script_error');
  t.regex(err.message, /WebAssembly is not defined/);
});

test('an abort of the run signal disposes a busy isolate at once and rejects cancelled', async (t) => {
  const controller = new AbortController();
  const started = Date.now();
  const pending = failure(sandbox.run('for (;;) {}', { timeoutMs: 60_000, signal: controller.signal }));
  setTimeout(() => controller.abort(), 200);
  const err = await pending;
  t.is(err.code, 'cancelled');
  t.true(Date.now() - started < 5000, 'long before the 60 s time limit');
  const already = new AbortController();
  already.abort();
  t.is((await failure(sandbox.run('return 1;', { signal: already.signal }))).code, 'cancelled');
});
