import { defineExecutor, type ExecutorContext, type ExecutorResult, type JsonValue } from '../../core/plugin-api/index.ts';
import { hostFunctions } from './host-functions.ts';
import { OUTPUT_MARKER, wrapperCode } from '../_lib/script-wrapper.ts';
import { SCRIPT_OPTIONS, scriptSettings } from './script-settings.ts';

const MAX_SOURCE_CHARS = 1_000_000;
const COMPILE_TIMEOUT_MS = 2000;

/** A sandbox rejection (code `timeout`, `memory_limit`, `script_error`, `invalid_value`, `cancelled`) as a run result. */
function failure(err: unknown, timeoutMs: number): ExecutorResult {
  const code = (err as { code?: unknown })?.code;
  const message = String((err as Error)?.message ?? err).slice(0, 1000);
  if (code === 'timeout') return { status: 'timed_out', output: {}, error: { code: 'timeout', message: `the script did not finish within ${timeoutMs} ms` } };
  if (message.includes(OUTPUT_MARKER)) return { status: 'failed', output: {}, error: { code: 'output_too_large', message: message.replace(/^.*?RAMPART_OUTPUT_TOO_LARGE /, '') } };
  if (code === 'cancelled') return { status: 'failed', output: {}, error: { code: 'cancelled', message: 'the run was cancelled' } };
  if (code === 'memory_limit' || code === 'invalid_value') return { status: 'failed', output: {}, error: { code, message } };
  // Anything else, even an unexpected host-side failure, is the script's failure: never a rejection left unhandled.
  return { status: 'failed', output: {}, error: { code: 'script_error', message } };
}

function sourceOf(ctx: ExecutorContext): string | ExecutorResult {
  const source = ctx.config.source;
  if (typeof source !== 'string' || source.trim() === '') return { status: 'failed', output: {}, error: { code: 'invalid_config', message: 'config.source must be the JavaScript body of an async function of (params, { log, http })' } };
  if (source.length > MAX_SOURCE_CHARS) return { status: 'failed', output: {}, error: { code: 'invalid_config', message: `config.source is longer than ${MAX_SOURCE_CHARS} characters` } };
  return source;
}

/** Dry run: the source is compiled in a fresh isolate (never on the host) but not called. */
async function plan(ctx: ExecutorContext, source: string): Promise<ExecutorResult> {
  const settings = scriptSettings(ctx);
  const code = wrapperCode({ source, compileOnly: true, httpAvailable: !ctx.sandboxMode, limits: settings });
  try {
    await ctx.sandbox.run(code, { input: null, timeoutMs: Math.min(ctx.timeoutMs, COMPILE_TIMEOUT_MS), memoryMb: settings.memoryMb });
  } catch (err) {
    return failure(err, ctx.timeoutMs);
  }
  return {
    status: 'completed',
    output: { dry_run: true },
    plan: { executor: 'script', source_bytes: Buffer.byteLength(source), params: { ...ctx.params }, http_available: !ctx.sandboxMode, timeout_ms: ctx.timeoutMs, memory_mb: settings.memoryMb },
  };
}

async function execute(ctx: ExecutorContext, source: string): Promise<ExecutorResult> {
  const settings = scriptSettings(ctx);
  const code = wrapperCode({ source, compileOnly: false, httpAvailable: !ctx.sandboxMode, limits: settings });
  const input = JSON.parse(JSON.stringify(ctx.params)) as JsonValue;
  // The run's signal (a cancel, the engine's timeout, shutdown) disposes the isolate; the
  // sandbox settles only once its code has stopped, so the worker's slot is held until then.
  try {
    const out = await ctx.sandbox.run(code, { input, timeoutMs: ctx.timeoutMs, memoryMb: settings.memoryMb, functions: hostFunctions(ctx, settings), signal: ctx.signal });
    for (const line of out.logs) ctx.log('INFO', line);
    const json = out.result;
    if (typeof json !== 'string') return { status: 'failed', output: {}, error: { code: 'invalid_value', message: 'the return value did not come back as JSON text' } };
    let result: JsonValue;
    try {
      result = JSON.parse(json) as JsonValue;
    } catch {
      return { status: 'failed', output: {}, error: { code: 'invalid_value', message: 'the return value did not come back as JSON text' } };
    }
    if (Buffer.byteLength(json) > settings.maxOutputBytes) return failure({ code: 'script_error', message: `${OUTPUT_MARKER} the return value is larger than ${settings.maxOutputBytes} bytes of JSON` }, ctx.timeoutMs);
    return { status: 'completed', output: { result } };
  } catch (err) {
    return failure(err, ctx.timeoutMs);
  }
}

/**
 * The `script` executor: JavaScript from the action's `config.source`, run in a fresh
 * isolated-vm isolate with only `log` and (outside sandbox runs) `http`. See README.md.
 */
export default defineExecutor({
  name: 'script',
  version: '1.0.0',
  apiVersion: '^1.6.0',
  description: 'Runs JavaScript (the body of an async function of (params, { log, http })) in an isolated-vm isolate; its return value is the output.',
  capabilities: ['exec:sandbox', 'net:outbound'],
  executorKind: 'script',
  options: SCRIPT_OPTIONS,
  configSchema: {
    source: { type: 'string', required: true, description: 'Body of an async function of (params, { log, http }); its JSON return value becomes output.result.' },
  },
  async run(ctx) {
    const source = sourceOf(ctx);
    if (typeof source !== 'string') return source;
    return ctx.dryRun ? plan(ctx, source) : execute(ctx, source);
  },
});
