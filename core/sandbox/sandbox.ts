import ivm from 'isolated-vm';
import type { JsonValue, Sandbox, SandboxResult, SandboxRunOptions } from '../plugin-api/index.ts';
import { SandboxError, strictJson } from './sandbox-error.ts';

/** A host function the engine hands to sandboxed code: JSON in, JSON out. */
export type HostFunction = (...args: JsonValue[]) => JsonValue | Promise<JsonValue>;

export interface SandboxOptions {
  /** Functions the code may call by name (each returns a promise inside the sandbox). */
  functions?: Readonly<Record<string, HostFunction>>;
  defaultTimeoutMs?: number;
  defaultMemoryMb?: number;
}

const MAX_LOG_LINES = 1000;
const MAX_LOG_CHARS = 4000;

// Runs inside the isolate before the code: console.log and the host functions, wired to
// the host through callbacks that only ever carry strings (JSON text).
// WebAssembly is taken away first: its memory is allocated outside the heap limit and
// would let one run grow the process by gigabytes (issue 25); scripts have no use for it.
const PRELUDE = `
delete globalThis.WebAssembly;
const stringify = JSON.stringify;
const strict = (v, what) => {
  try {
    return stringify(v === undefined ? null : v, (k, x) => {
      if (typeof x === 'function' || typeof x === 'symbol') throw new TypeError('a ' + typeof x + ' cannot cross the sandbox boundary');
      return x;
    });
  } catch (e) {
    throw new TypeError('INVALID_VALUE ' + what + ' is not JSON: ' + String(e && e.message).split(String.fromCharCode(10))[0]);
  }
};
const show = (x) => { if (typeof x === 'string') return x; try { return JSON.stringify(x); } catch { return String(x); } };
const log = $log;
globalThis.console = Object.freeze({ log: (...a) => log(a.map(show).join(' ')) });
for (const name of JSON.parse($names)) {
  const call = globalThis['$host_' + name];
  delete globalThis['$host_' + name];
  globalThis[name] = async (...args) => {
    const reply = JSON.parse(await call.apply(undefined, [strict(args, 'arguments of ' + name)], { result: { promise: true } }));
    if ('error' in reply) throw new Error(reply.error);
    return reply.value;
  };
}
delete globalThis.$log;
delete globalThis.$names;
globalThis.$strict = strict;
undefined;
`;

/**
 * Calls a host function and answers as JSON text that never rejects: a failure travels
 * as `{error}` and is thrown inside the isolate, so no host-side rejection is left for
 * isolated-vm to settle on its own schedule.
 */
async function callHost(name: string, fn: HostFunction, args: string): Promise<string> {
  try {
    const value = await fn(...(JSON.parse(args) as JsonValue[]));
    return `{"value":${strictJson(value, `result of ${name}`)}}`;
  } catch (err) {
    return JSON.stringify({ error: (err as Error)?.message ?? String(err) });
  }
}

/** The code's result from its JSON text; anything else crossing back is refused with a message of ours, never a host parser's. */
function resultOf(text: unknown): JsonValue {
  if (typeof text === 'string') {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      // fall through: not JSON text
    }
  }
  throw new SandboxError('invalid_value', 'the result did not come back as JSON text');
}

function classify(err: unknown, stopped: 'timeout' | 'cancelled' | null, timeoutMs: number, disposed: boolean): SandboxError {
  if (err instanceof SandboxError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (stopped === 'cancelled') return new SandboxError('cancelled', 'sandbox run was cancelled');
  if (stopped === 'timeout' || message === 'Script execution timed out.') return new SandboxError('timeout', `sandbox run timed out after ${timeoutMs} ms`);
  if (disposed && /memory limit/i.test(message)) return new SandboxError('memory_limit', 'sandbox run exceeded its memory limit');
  const invalid = /INVALID_VALUE (.*)$/.exec(message);
  if (invalid) return new SandboxError('invalid_value', invalid[1]!);
  return new SandboxError('script_error', message);
}

/**
 * The one isolated-vm wrapper: each run gets a fresh isolate (heap limit), a context
 * holding only `console.log` and the host functions handed in, a wall-clock limit that
 * covers awaited work as well as CPU, and JSON-only values both ways. The isolate is
 * disposed after the run, whatever happened; on a timeout or an abort of the run's
 * signal it is disposed at once, and the returned promise settles only once the code
 * has stopped running in it, so a caller holding a slot until then holds it while the
 * isolate can still use CPU.
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return {
    async run(code: string, run: SandboxRunOptions = {}): Promise<SandboxResult> {
      // Per-run functions (API 1.3) join the sandbox's own; a run's name wins.
      const functions: Readonly<Record<string, HostFunction>> = { ...(options.functions ?? {}), ...(run.functions ?? {}) };
      const timeoutMs = run.timeoutMs ?? options.defaultTimeoutMs ?? 1000;
      const memoryMb = Math.max(8, run.memoryMb ?? options.defaultMemoryMb ?? 32);
      const input = strictJson(run.input ?? null, 'input');
      const logs: string[] = [];
      const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
      let stopped: 'timeout' | 'cancelled' | null = null;
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<unknown> = Promise.resolve();
      let stop: (why: 'timeout' | 'cancelled') => void = () => {};
      const halted = new Promise<never>((_, reject) => {
        stop = (why) => {
          if (stopped) return;
          stopped = why;
          if (!isolate.isDisposed) isolate.dispose();
          reject(new Error(why));
        };
      });
      halted.catch(() => {});
      const onAbort = () => stop('cancelled');
      try {
        if (run.signal?.aborted) throw new SandboxError('cancelled', 'sandbox run was cancelled');
        run.signal?.addEventListener('abort', onAbort, { once: true });
        const context = await isolate.createContext();
        const global = context.global;
        await global.set('$names', JSON.stringify(Object.keys(functions)));
        await global.set('$log', new ivm.Callback((line: string) => {
          if (logs.length < MAX_LOG_LINES) logs.push(String(line).slice(0, MAX_LOG_CHARS));
        }, { ignored: true }));
        for (const [name, fn] of Object.entries(functions)) {
          await global.set(`$host_${name}`, new ivm.Reference((args: string) => callHost(name, fn, args)));
        }
        await context.eval(PRELUDE, { timeout: timeoutMs });
        // $strict leaves the global object before the code runs: the code can neither see nor replace it.
        const wrapped = `((strict) => { delete globalThis.$strict; return (async (input) => {\n${code}\n})(JSON.parse(${JSON.stringify(input)})).then((r) => strict(r, 'result')); })(globalThis.$strict)`;
        timer = setTimeout(() => stop('timeout'), timeoutMs);
        running = context.eval(wrapped, { timeout: timeoutMs, promise: true });
        const text = (await Promise.race([running, halted])) as unknown;
        return { result: resultOf(text), logs };
      } catch (err) {
        throw classify(err, stopped, timeoutMs, isolate.isDisposed);
      } finally {
        clearTimeout(timer);
        run.signal?.removeEventListener('abort', onAbort);
        if (!isolate.isDisposed) isolate.dispose();
        // The disposed isolate's code is terminated; its eval settles once it no longer runs.
        await running.catch(() => {});
      }
    },
  };
}
