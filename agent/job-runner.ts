import type { AgentJob } from '../core/agent-protocol.ts';
import type { ExecutorResult, JsonValue, LogLevel, Sandbox } from '../core/plugin-api/index.ts';
import { runExecutable } from '../executors/_lib/run-executable.ts';
import { HOST_LOG, OUTPUT_MARKER, wrapperCode } from '../executors/_lib/script-wrapper.ts';

/** What a job may use on this machine: the scripts directory, output bounds, and the sandbox script jobs run in. */
export interface RunLimits {
  scriptsDir: string;
  maxOutputBytes: number;
  maxLogLines: number;
  scriptMemoryMb: number;
  /** A fresh isolate for one script job (the engine's sandbox, handed in by the entry point, agent/main.ts). */
  sandbox: () => Sandbox;
}

const LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

/**
 * Runs a script job as the platform's script executor does (the same wrapper: the body of
 * an async function of `(params, { log })`, deep-frozen parameters, return value → output
 * `{result}`), but with no `http`: an agent reaches only its own machine's executables.
 */
async function runScript(job: AgentJob & { command: { kind: 'script' } }, limits: RunLimits, signal: AbortSignal, onLog: (level: LogLevel, message: string) => void): Promise<ExecutorResult> {
  const code = wrapperCode({ source: job.command.source, compileOnly: false, httpAvailable: false, limits: { maxOutputBytes: limits.maxOutputBytes, maxLogLines: limits.maxLogLines, maxHttpCalls: 0, maxHttpBytes: 0 } });
  const sandbox = limits.sandbox();
  const log = (level: JsonValue, message: JsonValue) => {
    onLog(LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'INFO', String(message).slice(0, 4000));
    return null;
  };
  // The job's signal disposes the isolate; the sandbox settles once its code has stopped.
  try {
    const out = await sandbox.run(code, { input: JSON.parse(JSON.stringify(job.params)) as JsonValue, timeoutMs: job.timeout_ms, memoryMb: limits.scriptMemoryMb, functions: { [HOST_LOG]: log }, signal });
    for (const line of out.logs) onLog('INFO', line);
    let result: JsonValue;
    try {
      result = JSON.parse(typeof out.result === 'string' ? out.result : '') as JsonValue;
    } catch {
      return { status: 'failed', output: {}, error: { code: 'invalid_value', message: 'the return value did not come back as JSON text' } };
    }
    return { status: 'completed', output: { result } };
  } catch (err) {
    const errCode = String((err as { code?: unknown })?.code ?? 'script_error');
    const message = String((err as Error)?.message ?? err).slice(0, 1000);
    if (errCode === 'cancelled') return { status: 'failed', output: {}, error: { code: 'cancelled', message: 'the job was stopped' } };
    if (errCode === 'timeout') return { status: 'timed_out', output: {}, error: { code: 'timeout', message: `the script did not finish within ${job.timeout_ms} ms` } };
    if (message.includes(OUTPUT_MARKER)) return { status: 'failed', output: {}, error: { code: 'output_too_large', message } };
    return { status: 'failed', output: {}, error: { code: errCode === 'memory_limit' || errCode === 'invalid_value' ? errCode : 'script_error', message } };
  }
}

/** Runs one job on this machine: an executable from the scripts directory, or isolate JavaScript. */
export function runJob(job: AgentJob, limits: RunLimits, signal: AbortSignal, onLog: (level: LogLevel, message: string) => void): Promise<ExecutorResult> {
  if (job.command.kind === 'script') return runScript(job as AgentJob & { command: { kind: 'script' } }, limits, signal, onLog);
  return runExecutable({
    scriptsDir: limits.scriptsDir,
    target: job.command.script,
    params: job.params,
    env: { RAMPART_EXECUTION_ID: job.execution_id, RAMPART_ATTEMPT: String(job.attempt) },
    sandbox: job.sandbox,
    timeoutMs: job.timeout_ms,
    signal,
    maxOutputBytes: limits.maxOutputBytes,
    maxLogLines: limits.maxLogLines,
    onLog,
  });
}
