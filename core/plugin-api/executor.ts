/**
 * The executor side of the contract: an executor runs one kind of response action, with
 * capability handles (HTTP, secrets, a JavaScript sandbox) handed in through its context,
 * never imported.
 */
import type { HttpHandle, HttpRequest } from './http.ts';
import type { LogLevel, OptionsSchema, PluginManifest } from './manifest.ts';

/** A request through {@link ExecutorContext.http}: the method is always stated. */
export interface ExecutorHttpRequest extends Omit<HttpRequest, 'method'> {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/**
 * Outbound HTTP for executors (since API 1.2): the platform's SSRF-guarded client.
 * Private, loopback and link-local destinations are refused unless the admin allowed
 * them; redirects are never followed (a 3xx comes back as is).
 */
export type ExecutorHttp = HttpHandle<ExecutorHttpRequest>;

/** The tenant's credential store, read by name (since API 1.2; capability `secrets:read`). */
export interface ExecutorSecrets {
  /** The secret's value; rejects when no such secret is set. Never log or return it. */
  get(name: string): Promise<string>;
}

/** A value that crosses the sandbox boundary: JSON only (no functions, cycles, symbols). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface SandboxRunOptions {
  /** Handed to the code as `input` (a JSON copy). */
  input?: JsonValue;
  /** Wall-clock limit of the run, CPU included (default 1 s). */
  timeoutMs?: number;
  /** Heap limit of the isolate (default 32 MB, at least 8). */
  memoryMb?: number;
}

export interface SandboxResult {
  /** What the code returned, as a JSON copy. */
  result: JsonValue;
  /** Lines the code wrote with `console.log`. */
  logs: string[];
}

/**
 * Runs untrusted JavaScript (since API 1.2; capability `exec:sandbox`). The code is the
 * body of an async function of `input`; its return value is the result. It runs in a
 * fresh V8 isolate: no `require`, `process`, `fetch` or timers, only `console.log` and
 * the functions the engine hands in. Rejects with an error whose `code` is `timeout`,
 * `memory_limit`, `script_error` or `invalid_value`.
 */
export interface Sandbox {
  run(code: string, options?: SandboxRunOptions): Promise<SandboxResult>;
}

/** Handed to an executor run. */
export interface ExecutorContext {
  /** Validated parameters, secrets included. */
  params: Readonly<Record<string, unknown>>;
  /** Names of the parameters that are secrets (to redact in anything you echo). */
  secretParams: readonly string[];
  /** The asset id the action targets, if any. */
  target: string | null;
  /** Executor settings from the action definition (URL, script name, method…). */
  config: Readonly<Record<string, unknown>>;
  /**
   * The action runs in sandbox mode: it must not touch production systems. (Before API
   * 1.2 this flag was called `sandbox`, a name the sandbox handle now holds.)
   */
  sandboxMode: boolean;
  /** Dry runs validate and describe what would happen, without side effects. */
  dryRun: boolean;
  signal: AbortSignal;
  timeoutMs: number;
  log(level: LogLevel, message: string): void;
  /** SSRF-guarded outbound HTTP (since API 1.2). */
  http: ExecutorHttp;
  /** Named tenant secrets (since API 1.2). */
  secrets: ExecutorSecrets;
  /** Isolated JavaScript (since API 1.2). */
  sandbox: Sandbox;
}

/** What an executor returns. `output` becomes the execution's `output`. */
export interface ExecutorResult {
  status: 'completed' | 'failed' | 'timed_out';
  output: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** An executor plugin runs one kind of action (`local`, `remote`, `agent`, `webhook`, …). */
export interface ExecutorPlugin extends PluginManifest {
  kind: 'executor';
  /** The executor kind actions refer to. */
  executorKind: string;
  /** Schema of the executor's `config` in action definitions. */
  configSchema?: OptionsSchema;
  run(ctx: ExecutorContext): Promise<ExecutorResult>;
}

/** Declares an executor plugin (adds `kind` and type checking). */
export function defineExecutor(plugin: Omit<ExecutorPlugin, 'kind'>): ExecutorPlugin {
  return { ...plugin, kind: 'executor' };
}
