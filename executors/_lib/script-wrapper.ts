/** Characters of one log message kept. */
export const MAX_LOG_CHARS = 4000;
/** Marks an oversized return value in the error thrown inside the isolate. */
export const OUTPUT_MARKER = 'RAMPART_OUTPUT_TOO_LARGE';

/** What the wrapper bounds inside the isolate (the script executor's settings, the agent's limits). */
export interface ScriptLimits {
  maxOutputBytes: number;
  maxLogLines: number;
  maxHttpCalls: number;
  maxHttpBytes: number;
}

/** Names the host functions are handed in under; the wrapper takes them off the global object before user code runs. */
export const HOST_LOG = '__rampart_log';
export const HOST_HTTP = '__rampart_http';

export interface WrapperOptions {
  source: string;
  /** Only compile the source (dry runs): the function is built, never called. */
  compileOnly: boolean;
  httpAvailable: boolean;
  limits: ScriptLimits;
}

/**
 * The code the sandbox runs (the body of an async function of `input`). It compiles the
 * user's source on its own with the isolate's AsyncFunction constructor (so the source
 * cannot break out of the wrapper's syntax, and a syntax error is reported as such), in
 * strict mode (no `this`, no `arguments.callee`), and calls it with a deep-frozen copy of
 * the parameters and the two tools. The tools check and bound their arguments inside the
 * isolate, so abuse (a huge message, 100k calls, functions or cycles) costs the host
 * nothing; the host checks again. The return value crosses as JSON text, bounded here.
 */
export function wrapperCode(o: WrapperOptions): string {
  const c = JSON.stringify({ ...o.limits, maxLogChars: MAX_LOG_CHARS, marker: OUTPUT_MARKER, compileOnly: o.compileOnly, httpAvailable: o.httpAvailable });
  return `"use strict";
const C = ${c};
const hostLog = globalThis.${HOST_LOG}; delete globalThis.${HOST_LOG};
const hostHttp = globalThis.${HOST_HTTP}; delete globalThis.${HOST_HTTP};
const AsyncFunction = (async function () {}).constructor;
// Taken before the script runs: a script replacing JSON.stringify changes only its own calls.
const stringify = JSON.stringify;
let compiled;
try {
  compiled = new AsyncFunction('params', '$tools', '"use strict"; const { log, http } = $tools; ' + ${JSON.stringify(o.source)});
} catch (e) {
  throw new Error('the script does not compile: ' + (e && e.name) + ': ' + (e && e.message));
}
if (C.compileOnly) return 'null';
const freeze = (v) => { if (v !== null && typeof v === 'object') { for (const k of Object.keys(v)) freeze(v[k]); Object.freeze(v); } return v; };
const pending = [];
let lines = 0;
const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
const text = (m) => {
  if (typeof m === 'string') return m;
  if (typeof m === 'function' || typeof m === 'symbol') throw new TypeError('log: the message must be a string or a JSON value, not a ' + typeof m);
  if (typeof m === 'bigint') return String(m);
  try { return String(stringify(m)); } catch (e) { throw new TypeError('log: the message is not JSON-serialisable: ' + String(e && e.message).split(String.fromCharCode(10))[0]); }
};
const log = (level, message) => {
  const line = text(message).slice(0, C.maxLogChars);
  lines += 1;
  if (lines > C.maxLogLines + 1) return;
  const args = lines > C.maxLogLines ? ['WARN', 'more than ' + C.maxLogLines + ' log lines: the rest are dropped'] : [LEVELS.includes(level) ? level : 'INFO', line];
  pending.push(hostLog(...args).catch(() => {}));
};
let calls = 0;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const http = async (req) => {
  if (!C.httpAvailable) throw new Error('http is not available in sandbox runs');
  if (req === null || typeof req !== 'object') throw new TypeError('http: the argument must be an object {url, method, headers, body}');
  if (++calls > C.maxHttpCalls) throw new Error('http: more than ' + C.maxHttpCalls + ' calls in one run');
  if (typeof req.url !== 'string' || req.url.length > 8192) throw new TypeError('http: url must be a string of at most 8192 characters');
  const method = req.method === undefined ? 'GET' : String(req.method).toUpperCase();
  if (!METHODS.includes(method)) throw new TypeError('http: method must be one of ' + METHODS.join(', '));
  const headers = {};
  if (req.headers !== undefined) {
    if (req.headers === null || typeof req.headers !== 'object') throw new TypeError('http: headers must be an object of strings');
    const names = Object.keys(req.headers);
    if (names.length > 100) throw new TypeError('http: at most 100 headers');
    for (const k of names) {
      const v = req.headers[k];
      if (typeof v !== 'string' || v.length > 8192 || k.length > 256) throw new TypeError('http: header ' + k.slice(0, 64) + ' must be a string of at most 8192 characters');
      headers[k] = v;
    }
  }
  let body;
  if (req.body !== undefined && req.body !== null) {
    if (typeof req.body === 'string') body = req.body;
    else if (typeof req.body === 'function' || typeof req.body === 'symbol') throw new TypeError('http: body must be a string or a JSON value');
    else { try { body = stringify(req.body); } catch (e) { throw new TypeError('http: body is not JSON-serialisable: ' + String(e && e.message).split(String.fromCharCode(10))[0]); } }
    if (body.length > C.maxHttpBytes) throw new RangeError('http: body larger than ' + C.maxHttpBytes + ' characters');
  }
  return hostHttp({ url: req.url, method, headers, body: body === undefined ? null : body });
};
const tools = Object.freeze({ log: Object.freeze(log), http: Object.freeze(http) });
let value;
try {
  value = await compiled.call(undefined, freeze(input), tools);
} catch (e) {
  throw new Error(e instanceof Error ? e.name + ': ' + e.message : 'uncaught ' + typeof e + ': ' + String(e).slice(0, 200));
} finally {
  await Promise.all(pending);
}
let json;
try {
  json = stringify(value === undefined ? null : value, (k, x) => {
    if (typeof x === 'function' || typeof x === 'symbol') throw new TypeError('a ' + typeof x + ' is not JSON');
    return x;
  });
} catch (e) {
  throw new TypeError('INVALID_VALUE the return value is not JSON-serialisable: ' + String(e && e.message).split(String.fromCharCode(10))[0]);
}
if (typeof json !== 'string') throw new TypeError('INVALID_VALUE the return value is not JSON-serialisable');
if (json.length > C.maxOutputBytes) throw new Error(C.marker + ' the return value is larger than ' + C.maxOutputBytes + ' bytes of JSON');
return json;
`;
}
