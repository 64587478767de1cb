import { createSandbox } from '../sandbox/sandbox.ts';
import type { AgentJobRequest, ExecutorAsset, ExecutorContext, ExecutorHttpRequest, ExecutorResult, HttpResponse, LogLevel, Sandbox } from '../plugin-api/index.ts';

// The sandbox the context hands in, for a test that builds one with other limits.
export { createSandbox, type HostFunction, type SandboxOptions } from '../sandbox/sandbox.ts';
export { SandboxError, type SandboxErrorCode } from '../sandbox/sandbox-error.ts';

export interface MockExecutorOptions {
  params?: Record<string, unknown>;
  secretParams?: string[];
  target?: string | null;
  config?: Record<string, unknown>;
  sandboxMode?: boolean;
  dryRun?: boolean;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The tenant secrets `ctx.secrets.get` serves, by name. */
  secrets?: Record<string, string>;
  /**
   * Answers `ctx.http` requests (missing response fields default to a 200 with an empty
   * body). Without it every request rejects: a unit test makes no network calls.
   */
  http?: (req: ExecutorHttpRequest) => Partial<HttpResponse> | Promise<Partial<HttpResponse>>;
  /** A sandbox to hand in instead of the real isolated-vm one. */
  sandbox?: Sandbox;
  executionId?: string;
  attempt?: number;
  /** Default `remediation`. */
  actionType?: string;
  asset?: ExecutorAsset | null;
  /** The plugin's admin settings. */
  settings?: Record<string, unknown>;
  /** Answers `ctx.agents.run` jobs; without it every job rejects. */
  agents?: (job: AgentJobRequest) => ExecutorResult | Promise<ExecutorResult>;
}

export interface MockLogLine {
  level: LogLevel;
  /** As the engine would store it: secret values replaced by `[redacted]`. */
  message: string;
}

/** An executor context for tests, plus what the executor did with it. */
export interface MockExecutorContext extends ExecutorContext {
  /** Every `ctx.http` request, in order. */
  readonly httpCalls: ExecutorHttpRequest[];
  /** Lines written with `ctx.log`. */
  readonly logs: MockLogLine[];
  /** Names passed to `ctx.secrets.get`, in order. */
  readonly secretReads: string[];
  /** Names of the secrets whose values the executor tried to log (the engine redacts them; a test should expect none). */
  readonly secretLeaks: string[];
}

/**
 * Builds an {@link ExecutorContext} that runs an executor without a server: HTTP goes to
 * the given responder and is recorded, secrets come from a map, the sandbox is the
 * engine's own unless one is injected, and log lines are collected with secret values
 * redacted as the engine does.
 */
export function mockExecutorContext(o: MockExecutorOptions = {}): MockExecutorContext {
  const secrets = { ...(o.secrets ?? {}) };
  const params = { ...(o.params ?? {}) };
  const secretParams = [...(o.secretParams ?? [])];
  const httpCalls: ExecutorHttpRequest[] = [];
  const logs: MockLogLine[] = [];
  const secretReads: string[] = [];
  const secretLeaks: string[] = [];
  const secretValues = (): Array<[string, string]> => [
    ...Object.entries(secrets),
    ...secretParams.flatMap((name) => (typeof params[name] === 'string' && params[name] !== '' ? [[name, params[name] as string] as [string, string]] : [])),
  ];
  return {
    executionId: o.executionId ?? 'exe_mock',
    attempt: o.attempt ?? 1,
    actionType: o.actionType ?? 'remediation',
    asset: o.asset ?? null,
    settings: Object.freeze({ ...(o.settings ?? {}) }),
    agents: {
      async run(job) {
        if (!o.agents) throw new Error(`no agent responder in this mock context (job for ${job.target})`);
        return o.agents(job);
      },
    },
    params: Object.freeze(params),
    secretParams: Object.freeze(secretParams),
    target: o.target ?? null,
    config: Object.freeze({ ...(o.config ?? {}) }),
    sandboxMode: o.sandboxMode ?? false,
    dryRun: o.dryRun ?? false,
    signal: o.signal ?? new AbortController().signal,
    timeoutMs: o.timeoutMs ?? 30_000,
    log(level, message) {
      let text = String(message).slice(0, 4000);
      for (const [name, value] of secretValues()) {
        if (!value || !text.includes(value)) continue;
        if (!secretLeaks.includes(name)) secretLeaks.push(name);
        text = text.split(value).join('[redacted]');
      }
      logs.push({ level, message: text });
    },
    http: {
      async request(req) {
        httpCalls.push({ ...req, headers: req.headers ? { ...req.headers } : undefined });
        if (!o.http) throw new Error(`no HTTP responder in this mock context (request to ${req.url})`);
        const res = await o.http(req);
        return { statusCode: 200, headers: {}, body: '', truncated: false, durationMs: 0, ...res };
      },
    },
    secrets: {
      async get(name) {
        secretReads.push(name);
        if (!Object.hasOwn(secrets, name)) throw new Error(`secret ${name} is not set`);
        return secrets[name]!;
      },
    },
    sandbox: o.sandbox ?? createSandbox(),
    httpCalls,
    logs,
    secretReads,
    secretLeaks,
  };
}
