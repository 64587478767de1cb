import type { ExecutorContext, JsonValue, LogLevel, SandboxFunction } from '../../core/plugin-api/index.ts';
import { HOST_HTTP, HOST_LOG, MAX_LOG_CHARS } from '../_lib/script-wrapper.ts';
import type { ScriptSettings } from './script-settings.ts';

const LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The host side of the script's tools. The wrapper inside the isolate already checks and
 * bounds every argument; these check again because the host must not trust the isolate.
 * `http` is left out entirely in sandbox runs: the isolate then has nothing to call.
 */
export function hostFunctions(ctx: ExecutorContext, limits: ScriptSettings): Record<string, SandboxFunction> {
  let lines = 0;
  let calls = 0;
  const functions: Record<string, SandboxFunction> = {
    [HOST_LOG]: (level, message) => {
      lines += 1;
      if (lines > limits.maxLogLines + 1) return null;
      const lv = LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'INFO';
      ctx.log(lv, String(message).slice(0, MAX_LOG_CHARS));
      return null;
    },
  };
  if (ctx.sandboxMode) return functions;
  functions[HOST_HTTP] = async (req) => {
    calls += 1;
    if (calls > limits.maxHttpCalls) throw new Error(`http: more than ${limits.maxHttpCalls} calls in one run`);
    if (!isRecord(req) || typeof req.url !== 'string') throw new Error('http: the argument must be {url, method, headers, body}');
    const method = METHODS.find((m) => m === req.method) ?? 'GET';
    const headers: Record<string, string> = {};
    if (isRecord(req.headers)) for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const body = typeof req.body === 'string' ? req.body : undefined;
    if (body !== undefined && Buffer.byteLength(body) > limits.maxHttpBytes) throw new Error(`http: body larger than ${limits.maxHttpBytes} bytes`);
    const res = await ctx.http.request({ url: req.url, method, headers, body, maxResponseBytes: limits.maxHttpBytes, signal: ctx.signal });
    const resHeaders: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k] = v;
    return { status: res.statusCode, headers: resHeaders, body: res.body, truncated: res.truncated };
  };
  return functions;
}
