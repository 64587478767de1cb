import type { ExecutorResult, LogLevel } from '../core/plugin-api/index.ts';
import type { AgentLogFn } from './agent-log.ts';
import { runJob, type RunLimits } from './job-runner.ts';
import type { AgentJob } from '../core/agent-protocol.ts';
import { JobRefusedError, RejectedTokenError, type RampartClient } from './rampart-client.ts';
import { Heartbeat } from '../core/work/heartbeat.ts';

export interface SessionDeps {
  client: RampartClient;
  log: AgentLogFn;
  limits: RunLimits;
  /** Aborted when the agent stops for good (after its drain time): the job ends as `agent_stopped`. */
  stop: AbortSignal;
  sleep: (ms: number) => Promise<void>;
}

const MAX_BUFFERED_LINES = 5000;
const MAX_LINES_PER_CALL = 500;

/** Retries `fn` while Rampart is unreachable, until `until` (epoch ms); other errors go through. */
async function persist<T>(deps: SessionDeps, until: number, fn: () => Promise<T>): Promise<T> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof JobRefusedError || err instanceof RejectedTokenError || Date.now() + delay > until) throw err;
      await deps.sleep(delay);
    }
  }
}

/**
 * One claimed job on this agent: start it (a refused start means it must not run: its
 * claim lapsed or it was cancelled), run it while streaming log lines back in batches,
 * which double as heartbeats (a reply `cancel: true` stops it), then report the result.
 * A job the agent is stopping for is reported `failed` / `agent_stopped`.
 */
export async function runSession(job: AgentJob, deps: SessionDeps): Promise<void> {
  const { client, log } = deps;
  const about = { job_id: job.id, execution_id: job.execution_id, attempt: job.attempt, kind: job.command.kind, script: job.command.kind === 'local' ? job.command.script : undefined };
  try {
    await persist(deps, Date.now() + job.lease_ms / 2, () => client.start(job.id));
  } catch (err) {
    log('warn', 'job not started', { ...about, reason: err instanceof JobRefusedError ? err.code : (err as Error).message });
    return;
  }
  log('info', 'job started', about);
  const abort = new AbortController();
  let why: 'cancel' | 'stop' | 'revoked' | null = null;
  const end = (reason: NonNullable<typeof why>) => {
    why ??= reason;
    abort.abort();
  };
  const onStop = () => end('stop');
  if (deps.stop.aborted) onStop();
  else deps.stop.addEventListener('abort', onStop, { once: true });

  const lines: Array<{ level: LogLevel; message: string }> = [];
  let dropped = 0;
  let lastBeat = Date.now();
  const beatEvery = Math.max(100, Math.floor(job.lease_ms / 3));
  const flush = async (): Promise<void> => {
    const batch = lines.splice(0, MAX_LINES_PER_CALL);
    try {
      if (await client.logs(job.id, batch)) end('cancel');
      lastBeat = Date.now();
    } catch (err) {
      if (err instanceof RejectedTokenError) end('revoked');
      else if (err instanceof JobRefusedError) end('cancel');
      else lines.unshift(...batch); // unreachable: keep the lines for the next beat
    }
  };
  // The same Heartbeat as the server's lease worker: lines go out as they come (every 500 ms
  // at most), and an empty beat keeps the lease when nothing was sent for a third of it.
  const heartbeat = new Heartbeat({
    everyMs: Math.min(500, beatEvery),
    beat: async () => {
      if (lines.length || Date.now() - lastBeat >= beatEvery) await flush();
    },
  }).start();

  let result: ExecutorResult;
  try {
    result = await runJob(job, deps.limits, abort.signal, (level, message) => {
      if (lines.length < MAX_BUFFERED_LINES) lines.push({ level, message });
      else dropped += 1;
    });
  } catch (err) {
    result = { status: 'failed', output: {}, error: { code: 'agent_error', message: `the agent could not run the job: ${(err as Error).message}` } };
  } finally {
    await heartbeat.stop();
    deps.stop.removeEventListener('abort', onStop);
  }
  if (dropped) lines.push({ level: 'WARN', message: `the agent dropped ${dropped} log lines it could not send in time` });
  if (why === 'cancel' || why === 'revoked') {
    log('info', 'job stopped on the server\'s request', { ...about, reason: why });
    return;
  }
  if (why === 'stop') result = { status: 'failed', output: {}, error: { code: 'agent_stopped', message: 'the agent was stopped while the job ran' } };
  const until = Date.now() + job.timeout_ms + job.lease_ms;
  try {
    while (lines.length) {
      const before = lines.length;
      await persist(deps, until, flush);
      if (lines.length >= before) break;
    }
    await persist(deps, until, () => client.result(job.id, result));
    log('info', 'job finished', { ...about, status: result.status, error_code: result.error?.code });
  } catch (err) {
    log('warn', 'job result not accepted', { ...about, status: result.status, reason: err instanceof JobRefusedError ? err.code : (err as Error).message });
  }
}
