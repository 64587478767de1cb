import type { ExecutorsConfig } from '../../config/executors-config.ts';
import type { ActionVersion } from '../actions/action-version.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { ExecutorAsset, ExecutorContext, ExecutorResult } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { createSandbox } from '../sandbox/sandbox.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { executorConfigOf, executorKindOf } from './executor-choice.ts';
import { productionHttp, sandboxHttp } from './executor-http.ts';
import type { RunLog } from './run-log.ts';
import type { AgentHandleFactory, CredentialPort } from './run-ports.ts';
import type { SecretScrubber } from './secret-scrubber.ts';

/** Largest output (as JSON text) an execution keeps. */
const MAX_OUTPUT_CHARS = 1024 * 1024;

export interface AttemptInput {
  executionId: string;
  tenantId: string;
  attempt: number;
  action: ActionVersion;
  /** Parameter values, secrets included. */
  params: Record<string, unknown>;
  secretParams: string[];
  asset: ExecutorAsset | null;
  sandbox: boolean;
  dryRun: boolean;
  /** Aborts the attempt: a cancel, a lost lease or shutdown. The reason says which. */
  signal: AbortSignal;
  log: RunLog;
  scrubber: SecretScrubber;
}

export interface AttemptDeps {
  plugins: PluginRegistry;
  outbound: OutboundHttpClient;
  credentials: CredentialPort;
  config: ExecutorsConfig;
  agents?: AgentHandleFactory;
}

export interface AttemptOutcome extends ExecutorResult {
  /** Why the attempt was aborted from outside, if it was ('cancelled', 'lost', 'shutdown': core/work/lease-worker.ts StopReason). */
  aborted: string | null;
  /**
   * Settles when the executor's own promise does. The engine may record an outcome first
   * (a cancel, or an executor that overran its timeout and grace), but the worker keeps the
   * run's slot until this settles: a cancelled run never leaves work running outside
   * `executors.concurrency`.
   */
  settled?: Promise<void>;
}

const failed = (code: string, message: string): ExecutorResult => ({ status: 'failed', output: {}, error: { code, message } });

/** Keeps an executor's answer to the contract: a known status, a JSON object output of bounded size. */
function normalise(result: unknown): ExecutorResult {
  const r = result as Partial<ExecutorResult> | null;
  if (!r || typeof r !== 'object' || !['completed', 'failed', 'timed_out'].includes(r.status as string)) {
    return failed('invalid_executor_result', 'The executor returned no valid result.');
  }
  let output: Record<string, unknown> = {};
  if (r.output !== undefined && r.output !== null) {
    if (typeof r.output !== 'object' || Array.isArray(r.output)) return failed('invalid_executor_result', 'The executor output is not an object.');
    let text: string;
    try {
      text = JSON.stringify(r.output);
    } catch {
      return failed('invalid_executor_result', 'The executor output is not JSON.');
    }
    if (text.length > MAX_OUTPUT_CHARS) return failed('output_too_large', `The output exceeds ${MAX_OUTPUT_CHARS} characters.`);
    output = JSON.parse(text) as Record<string, unknown>;
  }
  const error = r.error ? { code: String(r.error.code ?? 'failed').slice(0, 64), message: String(r.error.message ?? '').slice(0, 2000) } : undefined;
  const plan = r.plan && typeof r.plan === 'object' ? (JSON.parse(JSON.stringify(r.plan)) as Record<string, unknown>) : undefined;
  return { status: r.status!, output, ...(error ? { error } : {}), ...(plan ? { plan } : {}) };
}

/**
 * Runs one attempt of an action through its executor plugin: builds the context (HTTP,
 * secrets, sandbox and agent handles fitted to sandbox/production), enforces the
 * timeout (the executor is asked to stop through its signal, and after a grace the
 * engine stops waiting and records `timed_out` itself), and normalises what comes back.
 * Scrubbing is the caller's: the outcome still holds raw values.
 */
export async function runAttempt(input: AttemptInput, deps: AttemptDeps): Promise<AttemptOutcome> {
  const kind = executorKindOf(input.action);
  const loaded = deps.plugins.executorFor(kind);
  if (!loaded) return { ...failed('executor_unavailable', `No executor plugin of kind "${kind}" is loaded.`), aborted: null };
  const timeoutMs = input.action.timeoutSeconds * 1000;
  const local = new AbortController();
  let timedOut = false;
  const onOuter = () => local.abort(input.signal.reason);
  if (input.signal.aborted) local.abort(input.signal.reason);
  else input.signal.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    // A TimeoutError reason lets executors tell a timeout from a cancel.
    local.abort(new DOMException(`The action did not finish within ${input.action.timeoutSeconds} s.`, 'TimeoutError'));
  }, timeoutMs);
  let grace: NodeJS.Timeout | undefined;
  let settled: Promise<void> = Promise.resolve();
  const log = input.log.write;
  const ctx: ExecutorContext = {
    executionId: input.executionId,
    attempt: input.attempt,
    actionType: input.action.type,
    params: Object.freeze({ ...input.params }),
    secretParams: Object.freeze([...input.secretParams]),
    target: input.asset?.id ?? null,
    asset: input.asset,
    config: Object.freeze(executorConfigOf(input.action)),
    settings: Object.freeze({ ...loaded.options }),
    sandboxMode: input.sandbox,
    dryRun: input.dryRun,
    signal: local.signal,
    timeoutMs,
    log,
    http: input.sandbox
      ? sandboxHttp({ outbound: deps.outbound, httpTarget: deps.config.sandbox.httpTarget, canned: deps.config.sandbox.cannedResponse, signal: local.signal, log })
      : productionHttp(deps.outbound, local.signal),
    secrets: {
      async get(name: string) {
        const values = await deps.credentials.resolve(input.tenantId, [name], { sandbox: input.sandbox });
        const value = values[name]!;
        input.scrubber.add([value]);
        return value;
      },
    },
    sandbox: createSandbox({ defaultTimeoutMs: timeoutMs, defaultMemoryMb: deps.config.script.memoryMb }),
    agents: deps.agents
      ? deps.agents({ tenantId: input.tenantId, executionId: input.executionId, attempt: input.attempt, sandbox: input.sandbox, timeoutMs, signal: local.signal, log })
      : { run: async () => failed('agents_unavailable', 'On-site agents are not available in this server.') },
  };
  try {
    const overdue = new Promise<ExecutorResult>((resolve) => {
      local.signal.addEventListener('abort', () => {
        // A cancel is recorded at once (the run reads `cancelled` within the cancel read); the
        // slot still waits for the executor (`settled`). A timeout gives the executor its grace.
        const wait = local.signal.reason === 'cancelled' ? 0 : deps.config.killGraceMs;
        grace = setTimeout(() => resolve({ status: 'timed_out', output: {}, error: { code: 'executor_unresponsive', message: 'The executor did not stop when asked.' } }), wait);
      }, { once: true });
    });
    const running = Promise.resolve().then(() => loaded.plugin.run(ctx));
    settled = running.then(() => undefined, () => undefined);
    const raw = await Promise.race([running, overdue]);
    const result = normalise(raw);
    const aborted = timedOut ? null : local.signal.aborted ? String(local.signal.reason ?? 'aborted') : null;
    if (timedOut && result.status !== 'completed') {
      return { status: 'timed_out', output: result.output, error: { code: 'timeout', message: `The action did not finish within ${input.action.timeoutSeconds} s.` }, aborted: null, settled };
    }
    return { ...result, aborted, settled };
  } catch (err) {
    const aborted = timedOut ? null : local.signal.aborted ? String(local.signal.reason ?? 'aborted') : null;
    if (timedOut) return { status: 'timed_out', output: {}, error: { code: 'timeout', message: `The action did not finish within ${input.action.timeoutSeconds} s.` }, aborted: null, settled };
    return { ...failed('executor_error', errorMessage(err).slice(0, 2000)), aborted, settled };
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    input.signal.removeEventListener('abort', onOuter);
  }
}
