import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import type { ExecutorResult } from '../../../core/plugin-api/index.ts';
import script from '../../../executors/script/index.ts';

// The escape suite: untrusted source trying to reach the host, hang it, or exhaust it.
// Each attempt must end `failed` or `timed_out` with a clear error; the host stays
// healthy (checked at the end). Small limits keep the suite fast.
const LIMITS = { timeoutMs: 5000, settings: { memoryMb: 16 } };
// Runs that must hang get a short limit; the others a long one, so load on the machine cannot fail them.
const HANG = { timeoutMs: 300 };

async function attempt(source: string, o: MockExecutorOptions = {}): Promise<ExecutorResult & { logs: number }> {
  const ctx = mockExecutorContext({ ...LIMITS, http: () => ({ statusCode: 200, body: 'ok' }), ...o, config: { source } });
  const result = await script.run(ctx);
  return { ...result, logs: ctx.logs.length };
}

function contained(t: import('ava').ExecutionContext, r: ExecutorResult, status: 'failed' | 'timed_out', code: string, message?: RegExp): void {
  t.is(r.status, status, `expected ${status}, got ${JSON.stringify(r)}`);
  t.is(r.error?.code, code);
  if (message) t.regex(r.error?.message ?? '', message);
}

const rssBefore = process.memoryUsage().rss;

test('this.constructor.constructor cannot reach process (strict mode: no this)', async (t) => {
  contained(t, await attempt(`return this.constructor.constructor('return process')().env;`), 'failed', 'script_error', /TypeError/);
});

test('the tools\' constructors are the isolate\'s own Function: no process behind them', async (t) => {
  contained(t, await attempt(`return log.constructor('return process')().env;`), 'failed', 'script_error', /ReferenceError: process is not defined/);
  contained(t, await attempt(`return (await http.constructor('return process')()).mainModule;`), 'failed', 'script_error', /ReferenceError: process is not defined/);
  contained(t, await attempt(`return (await log.constructor('return this')()).process.env;`), 'failed', 'script_error', /TypeError/);
});

test('the AsyncFunction constructor gives no way out either', async (t) => {
  const r = await attempt(`const AF = Object.getPrototypeOf(async function () {}).constructor; return await AF('return require("fs")')();`);
  contained(t, r, 'failed', 'script_error', /ReferenceError: require is not defined/);
});

test('Error.prepareStackTrace exposes only isolate frames', async (t) => {
  const r = await attempt(`
    Error.prepareStackTrace = (_, frames) => frames;
    const frames = new Error().stack;
    Error.prepareStackTrace = undefined;
    for (const f of Array.isArray(frames) ? frames : []) {
      const self = f.getThis && f.getThis();
      const fn = f.getFunction && f.getFunction();
      if ((self && self.process) || (fn && fn.constructor('return typeof process')() !== 'undefined')) return 'ESCAPED';
    }
    throw new Error('no host frame reachable');`);
  contained(t, r, 'failed', 'script_error', /no host frame reachable/);
});

test('arguments.callee.caller is refused in strict mode', async (t) => {
  contained(t, await attempt(`return arguments.callee.caller;`), 'failed', 'script_error', /TypeError/);
});

test('process, require, import(), timers and the host functions are absent from the global scope', async (t) => {
  const probe = await attempt(`return {
    process: typeof process, require: typeof require, module: typeof module, setTimeout: typeof setTimeout, fetch: typeof fetch,
    globals: Object.getOwnPropertyNames(globalThis).filter((n) => /rampart|host|^\\$/.test(n) && n !== '$strict'),
  };`);
  t.is(probe.status, 'completed');
  t.deepEqual(probe.output.result, { process: 'undefined', require: 'undefined', module: 'undefined', setTimeout: 'undefined', fetch: 'undefined', globals: [] });
  contained(t, await attempt(`return process.env;`), 'failed', 'script_error', /ReferenceError: process is not defined/);
  contained(t, await attempt(`return require('child_process');`), 'failed', 'script_error', /ReferenceError: require is not defined/);
  contained(t, await attempt(`return await import('node:fs');`), 'failed', 'script_error');
  contained(t, await attempt(`return globalThis.process.pid;`), 'failed', 'script_error', /TypeError/);
});

test('an infinite loop is timed_out', async (t) => {
  contained(t, await attempt(`while (true) {}`, HANG), 'timed_out', 'timeout', /did not finish within 300 ms/);
});

test('an async infinite loop with awaits is timed_out', async (t) => {
  contained(t, await attempt(`for (;;) await null;`, HANG), 'timed_out', 'timeout');
});

test('a promise that never settles is timed_out', async (t) => {
  contained(t, await attempt(`await new Promise(() => {});`, HANG), 'timed_out', 'timeout');
});

test('Atomics.wait on a SharedArrayBuffer is timed_out', async (t) => {
  contained(t, await attempt(`Atomics.wait(new Int32Array(new SharedArrayBuffer(16)), 0, 0); return 1;`, HANG), 'timed_out', 'timeout');
});

test('a memory bomb is failed with memory_limit', async (t) => {
  // A generous time limit: under load the bomb must still hit the heap limit first.
  contained(t, await attempt(`const a = []; for (;;) a.push(new Array(1e6).fill(1));`, { timeoutMs: 20_000 }), 'failed', 'memory_limit', /memory limit/);
});

test('a huge return value is failed, never handed to the host', async (t) => {
  const r = await attempt(`return 'x'.repeat(50e6);`, { settings: { memoryMb: 256 }, timeoutMs: 20_000 });
  contained(t, r, 'failed', 'output_too_large', /larger than 1048576 bytes/);
  const small = await attempt(`return 'x'.repeat(5000);`, { settings: { maxOutputBytes: 1024 }, timeoutMs: 20_000 });
  contained(t, small, 'failed', 'output_too_large');
});

test('deep recursion is failed with a RangeError', async (t) => {
  contained(t, await attempt(`const f = (n) => f(n + 1) + 1; return f(0);`), 'failed', 'script_error', /RangeError: Maximum call stack/);
});

test('calling log 100k times keeps the bounded number of lines and one WARN', async (t) => {
  const r = await attempt(`for (let i = 0; i < 100000; i++) log('INFO', 'spam ' + i); return 'done';`, { timeoutMs: 20_000 });
  t.is(r.status, 'completed');
  t.is(r.logs, 1001);
});

test('log with a 50 MB message is cut inside the isolate', async (t) => {
  const ctx = mockExecutorContext({ timeoutMs: 20_000, settings: { memoryMb: 256 }, config: { source: `log('INFO', 'y'.repeat(50e6)); return 1;` } });
  const r = await script.run(ctx);
  t.is(r.status, 'completed');
  t.is(ctx.logs[0]!.message.length, 4000);
});

test('re-entrancy: log while an http call is in flight, and inside its continuation', async (t) => {
  const ctx = mockExecutorContext({
    ...LIMITS,
    http: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { statusCode: 200, body: 'ok' };
    },
    config: { source: `const p = http({ url: 'https://a.test' }).then((r) => { log('INFO', 'inside ' + r.status); return r; }); log('INFO', 'during'); const r = await p; return r.body;` },
  });
  const r = await script.run(ctx);
  t.deepEqual(r.output, { result: 'ok' });
  t.deepEqual(ctx.logs.map((l) => l.message), ['during', 'inside 200']);
});

test('huge arguments to http are refused inside the isolate', async (t) => {
  const ctx = mockExecutorContext({ ...LIMITS, settings: { memoryMb: 256 }, timeoutMs: 20_000, http: () => ({ statusCode: 200 }), config: { source: `return await http({ url: 'https://a.test', method: 'POST', body: 'z'.repeat(20e6) });` } });
  const r = await script.run(ctx);
  contained(t, r, 'failed', 'script_error', /RangeError: http: body larger than 1048576/);
  t.deepEqual(ctx.httpCalls, []);
  contained(t, await attempt(`return await http({ url: 'x'.repeat(100000) });`), 'failed', 'script_error', /url must be a string of at most 8192/);
  contained(t, await attempt(`return await http('https://a.test');`), 'failed', 'script_error', /the argument must be an object/);
});

test('functions and cycles as arguments are clear errors', async (t) => {
  contained(t, await attempt(`log('INFO', () => 1);`), 'failed', 'script_error', /log: the message must be a string or a JSON value, not a function/);
  contained(t, await attempt(`const a = {}; a.a = a; log('INFO', a);`), 'failed', 'script_error', /log: the message is not JSON-serialisable/);
  contained(t, await attempt(`await http({ url: 'https://a.test', headers: { x: () => 1 } });`), 'failed', 'script_error', /header x must be a string/);
  contained(t, await attempt(`const a = {}; a.a = a; await http({ url: 'https://a.test', method: 'POST', body: a });`), 'failed', 'script_error', /body is not JSON-serialisable/);
  contained(t, await attempt(`await http({ url: 'https://a.test', method: 'CONNECT' });`), 'failed', 'script_error', /method must be one of/);
});

test.after('the host stays healthy: a normal script still runs and memory is not blown', async (t) => {
  const r = await attempt(`return params.n * 2;`, { params: { n: 21 } });
  t.deepEqual(r.output, { result: 42 });
  const grown = process.memoryUsage().rss - rssBefore;
  t.log(`rss grew by ${Math.round(grown / 1e6)} MB over the suite`);
  t.true(grown < 512e6, 'the isolates\' memory went back');
});

test('replacing JSON.stringify, JSON.parse or the wrapper\'s helpers changes only the script\'s own calls: a clean result or error, never a host message', async (t) => {
  const stringified = await attempt(`JSON.stringify = () => 42; return { ok: JSON.stringify({}) };`);
  t.deepEqual(stringified, { status: 'completed', output: { result: { ok: 42 } }, logs: 0 });
  const garbage = await attempt(`JSON.stringify = () => '{not json'; JSON.parse = () => 1; return 'fine';`);
  t.deepEqual(garbage.output, { result: 'fine' });
  const strict = await attempt(`return [typeof globalThis.$strict, typeof $strict];`);
  t.deepEqual(strict.output, { result: ['undefined', 'undefined'] });
  const replaced = await attempt(`globalThis.$strict = () => 7; return 'mine';`);
  t.deepEqual(replaced.output, { result: 'mine' });
  const proto = await attempt(`Object.defineProperty(Object.prototype, 'toJSON', { value: () => undefined, configurable: true }); return { a: 1 };`);
  t.not(proto.status, 'completed', JSON.stringify(proto));
  t.notRegex(proto.error?.message ?? '', /is not valid JSON|Unexpected token|undefined" is not/);
});
