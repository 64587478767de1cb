/**
 * The executor side of the contract: an executor runs one kind of response action, with
 * capability handles (HTTP, secrets, a JavaScript sandbox) handed in through its context,
 * never imported.
 */
import type { AssetType } from '../domain/asset-type.ts';
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

/** A host function handed to sandboxed code: JSON in, JSON out (a promise inside the isolate). */
export type SandboxFunction = (...args: JsonValue[]) => JsonValue | Promise<JsonValue>;

export interface SandboxRunOptions {
  /** Handed to the code as `input` (a JSON copy). */
  input?: JsonValue;
  /**
   * Functions the code may call by name, as globals (since API 1.3). Arguments and
   * results cross as JSON copies; a host-side error is thrown inside the isolate.
   */
  functions?: Readonly<Record<string, SandboxFunction>>;
  /** Wall-clock limit of the run, CPU included (default 1 s). */
  timeoutMs?: number;
  /** Heap limit of the isolate (default 32 MB, at least 8). WebAssembly is not available. */
  memoryMb?: number;
  /**
   * Stops the run when aborted (since API 1.6): the isolate is disposed at once and the
   * promise rejects with code `cancelled`, once the code no longer runs.
   */
  signal?: AbortSignal;
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
 * the functions the engine hands in, and no WebAssembly. Rejects with an error whose
 * `code` is `timeout`, `memory_limit`, `script_error`, `invalid_value` or (an aborted
 * signal) `cancelled`; a rejection or result comes only once the isolate is disposed.
 */
export interface Sandbox {
  run(code: string, options?: SandboxRunOptions): Promise<SandboxResult>;
}

/** The asset an action targets (since API 1.3). */
export interface ExecutorAsset {
  id: string;
  type: AssetType;
  /** The address: domain name, IP, URL or CIDR. */
  value: string;
  name: string;
}

/** The command an on-site agent runs: an admin-installed executable, or isolate JavaScript. */
export type AgentCommand = { kind: 'local'; script: string } | { kind: 'script'; source: string };

/** A job for an on-site execution agent (since API 1.3). */
export interface AgentJobRequest {
  /** An agent's name or one of its labels. */
  target: string;
  command: AgentCommand;
  /** Sent to the agent's executable on stdin (or to the script as `params`). */
  params: Record<string, unknown>;
}

/**
 * On-site execution agents (since API 1.3): the job is queued for an agent whose name
 * or label is `target`, and the promise settles with the agent's result. Log lines the
 * agent streams back arrive through the run's `log`. The run's signal and timeout apply.
 */
export interface ExecutorAgents {
  run(job: AgentJobRequest): Promise<ExecutorResult>;
}

/** Handed to an executor run. */
export interface ExecutorContext {
  /** The execution this run belongs to (stable across retries; since API 1.3). */
  executionId: string;
  /** 1 for the first attempt, then 2, 3… when the action retries (since API 1.3). */
  attempt: number;
  /** The action's type: `notification`, `remediation`, `webhook`, `script`, `approval` or a custom one (since API 1.3). */
  actionType: string;
  /** Validated parameters, secrets included. */
  params: Readonly<Record<string, unknown>>;
  /** Names of the parameters that are secrets (to redact in anything you echo). */
  secretParams: readonly string[];
  /** The asset id the action targets, if any. */
  target: string | null;
  /** The targeted asset itself, if any (since API 1.3). */
  asset: ExecutorAsset | null;
  /** The plugin's admin settings (`plugins.builtinOptions`, `executors.<name>`, or `plugins.external[].options`; since API 1.3). */
  settings: Readonly<Record<string, unknown>>;
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
  /** On-site execution agents (since API 1.3). */
  agents: ExecutorAgents;
}

/** What an executor returns. `output` becomes the execution's `output`. */
export interface ExecutorResult {
  status: 'completed' | 'failed' | 'timed_out';
  output: Record<string, unknown>;
  error?: { code: string; message: string };
  /**
   * Dry runs (since API 1.3): exactly what the run would do (the rendered request, or the
   * command and its stdin). The engine masks every secret value in it as `********`.
   */
  plan?: Record<string, unknown>;
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
