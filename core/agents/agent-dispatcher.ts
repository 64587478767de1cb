import type { Db } from '../db/create-db.ts';
import { newId } from '../ids.ts';
import type { AgentJobRequest, ExecutorResult, LogLevel } from '../plugin-api/index.ts';
import type { AgentJobCodec } from './agent-job-codec.ts';
import { agentJobRepository } from './agent-job-repository.ts';
import type { AgentSettings } from './agent-settings.ts';
import { pause, type AgentWakeups } from './agent-wakeups.ts';
import { TERMINAL_JOB_STATUSES, type AgentJobRecord } from './agent-views.ts';

/** One run's side of a dispatch: which execution attempt, its limits and where its log lines go. */
export interface AgentRun {
  tenantId: string;
  executionId: string;
  attempt: number;
  sandbox: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  log: (level: LogLevel, message: string) => void;
}

const MESSAGES: Record<string, string> = {
  no_agent: 'No agent for the target took the job before its timeout.',
  agent_lost: 'The agent running the job stopped reporting; the job was not offered again (it may have had effects).',
  timed_out: 'The job did not finish within its timeout.',
  cancelled: 'The run was cancelled.',
  agent_revoked: 'The agent was revoked while it ran the job.',
};

const failure = (status: ExecutorResult['status'], code: string, message = MESSAGES[code] ?? code): ExecutorResult => ({ status, output: {}, error: { code, message } });

function invalid(job: AgentJobRequest): string | null {
  if (typeof job.target !== 'string' || !/^[a-z0-9_.-]{1,64}$/.test(job.target)) return 'target must name an agent or label ([a-z0-9_.-], 1-64 characters)';
  const c = job.command as { kind?: unknown; script?: unknown; source?: unknown } | undefined;
  if (c?.kind === 'local' && typeof c.script === 'string' && c.script.length > 0) return null;
  if (c?.kind === 'script' && typeof c.source === 'string' && c.source.length > 0) return null;
  return 'command must be {kind: "local", script} or {kind: "script", source}';
}

/**
 * Queues a job for an on-site agent and waits for its end: the row is read every
 * `pollIntervalMs` (the agent talks to whichever API process; this may be a worker),
 * new log lines are forwarded to the run and deleted. One job per (execution, attempt):
 * a re-dispatch of the same attempt (its worker died and the run was resumed) waits on
 * the existing job instead of queueing another. Cancel ends the job at once (the agent
 * learns it at its next heartbeat); past the deadline plus a grace the job is recorded
 * `timed_out` with why: `no_agent`, `agent_lost` or `timed_out`.
 */
export async function dispatchAgentJob(
  deps: { db: Db; codec: AgentJobCodec; settings: AgentSettings; wakeups: AgentWakeups; clock: () => number },
  run: AgentRun,
  request: AgentJobRequest,
): Promise<ExecutorResult> {
  const { db, codec, settings, wakeups, clock } = deps;
  const problem = invalid(request);
  if (problem) return failure('failed', 'invalid_job', problem);
  const id = newId('job', clock());
  const timeoutMs = Math.max(1, Math.floor(run.timeoutMs));
  await agentJobRepository.insert(db, {
    id, tenantId: run.tenantId, executionId: run.executionId, attempt: run.attempt, target: request.target, command: request.command,
    paramsSealed: codec.sealParams(id, request.params ?? {}), sandbox: run.sandbox, timeoutMs, now: clock(),
  });
  let job = await agentJobRepository.findByAttempt(db, run.executionId, run.attempt);
  if (!job || job.tenantId !== run.tenantId) return failure('failed', 'invalid_job', 'the execution attempt belongs to another tenant');
  if (job.id !== id) run.log('INFO', `resuming the agent job ${job.id} of this attempt (${job.status}); it is not queued again`);
  wakeups.wake();

  let forwarded = 0;
  const forward = async (jobId: string) => {
    for (;;) {
      const batches = await agentJobRepository.pendingLogs(db, jobId, 50);
      if (!batches.length) return;
      for (const b of batches) {
        for (const line of codec.openLines(jobId, b.linesSealed)) {
          if (forwarded < settings.maxLogLines) run.log(line.level, line.message);
          else if (forwarded === settings.maxLogLines) run.log('WARN', `more than ${settings.maxLogLines} log lines: the rest are dropped`);
          forwarded += 1;
        }
      }
      await agentJobRepository.deleteLogs(db, batches.map((b) => b.id));
    }
  };
  const resultOf = (j: AgentJobRecord): ExecutorResult => {
    if (j.resultSealed) return codec.openResult(j.id, j.resultSealed);
    const code = j.errorCode ?? j.status;
    return failure(j.status === 'timed_out' ? 'timed_out' : 'failed', code);
  };

  for (;;) {
    await forward(job.id);
    job = (await agentJobRepository.findById(db, job.id))!;
    if (TERMINAL_JOB_STATUSES.includes(job.status)) {
      await forward(job.id);
      return resultOf(job);
    }
    const now = clock();
    const overdue = now >= job.deadlineAt + settings.timeoutGraceMs;
    // The engine aborts at its own timeout (plus its grace): past our deadline that is a timeout, not a cancel.
    if (overdue || (run.signal.aborted && now >= job.deadlineAt)) {
      const code = job.status === 'running' ? (job.lockedUntil < now ? 'agent_lost' : 'timed_out') : 'no_agent';
      if (await agentJobRepository.endLive(db, job.id, { status: 'timed_out', errorCode: code, now, cancel: true })) {
        await forward(job.id);
        return failure('timed_out', code);
      }
      continue;
    }
    if (run.signal.aborted) {
      if (await agentJobRepository.endLive(db, job.id, { status: 'cancelled', errorCode: 'cancelled', now, cancel: true })) {
        await forward(job.id);
        return failure('failed', 'cancelled');
      }
      continue;
    }
    await pause(Math.min(settings.pollIntervalMs, Math.max(1, job.deadlineAt + settings.timeoutGraceMs - now)), run.signal);
  }
}
