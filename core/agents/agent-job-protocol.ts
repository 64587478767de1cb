import type { Db } from '../db/create-db.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { claimToken } from '../work/instance-id.ts';
import type { AgentJob, AgentJobOutcome, AgentLogLine } from '../agent-protocol.ts';
import type { AgentJobCodec } from './agent-job-codec.ts';
import { agentJobRepository } from './agent-job-repository.ts';
import { agentRepository } from './agent-repository.ts';
import type { AgentSettings } from './agent-settings.ts';
import type { AgentWakeups } from './agent-wakeups.ts';
import { TERMINAL_JOB_STATUSES, type AgentJobRecord, type AgentPrincipal } from './agent-views.ts';

/**
 * The agent's side of a job: claim (long-poll), start, heartbeat with log lines, result.
 * Every write after the claim is guarded by the claim's lease token, read from the row
 * for the agent that holds it; so an agent whose claim lapsed and was taken by another
 * writes nothing. "Never run twice": only a claimed job can start (once), and a running
 * job is never offered again, whatever happens to its agent.
 */
export class AgentJobProtocol {
  constructor(
    private readonly db: Db,
    private readonly codec: AgentJobCodec,
    private readonly settings: AgentSettings,
    private readonly wakeups: AgentWakeups,
    private readonly clock: () => number,
  ) {}

  /** Waits up to `waitMs` for a job for this agent; null when none came. */
  async claim(agent: AgentPrincipal, waitMs: number, signal?: AbortSignal): Promise<AgentJob | null> {
    const deadline = this.clock() + waitMs;
    await agentJobRepository.expireOverdue(this.db, agent.tenantId, this.clock(), this.settings.timeoutGraceMs);
    for (;;) {
      // A client that went away must not claim: the job would sit out a lease unseen.
      if (signal?.aborted || this.wakeups.closed) return null;
      const now = this.clock();
      const job = await agentJobRepository.claim(this.db, agent, claimToken('agj'), now, this.settings.leaseMs);
      if (job) {
        // Revoked during the long poll: the job goes back to the queue, unseen.
        if ((await agentRepository.findById(this.db, agent.tenantId, agent.id))?.revokedAt == null) return this.#claimed(job, now);
        await agentJobRepository.releaseAgent(this.db, agent.id, this.clock());
        return null;
      }
      const left = deadline - this.clock();
      if (left <= 0) return null;
      await this.wakeups.sleep(Math.min(left, this.settings.pollIntervalMs), signal);
    }
  }

  #claimed(job: AgentJobRecord, now: number): AgentJob {
    return {
      id: job.id,
      execution_id: job.executionId,
      attempt: job.attempt,
      command: job.command,
      params: this.codec.openParams(job.id, job.paramsSealed),
      sandbox: job.sandbox,
      timeout_ms: Math.max(1, job.deadlineAt - now),
      lease_ms: this.settings.leaseMs,
    };
  }

  /** The job, when this agent holds it; another tenant's (or an unknown) job is 404, another agent's 409. */
  async #held(agent: AgentPrincipal, jobId: string): Promise<AgentJobRecord> {
    const job = await agentJobRepository.findById(this.db, jobId);
    if (!job || job.tenantId !== agent.tenantId) throw new NotFoundError('Job');
    if (job.agentId !== agent.id) throw new ConflictError('This job is not held by this agent (its claim lapsed and it went back to the queue).', 'job_not_held');
    return job;
  }

  #ended(job: AgentJobRecord): ConflictError {
    return new ConflictError(`The job has already ended (${job.status}${job.errorCode ? `: ${job.errorCode}` : ''}); its result is no longer accepted.`, 'job_finished', { job_status: job.status });
  }

  /** claimed → running. */
  async start(agent: AgentPrincipal, jobId: string): Promise<void> {
    const job = await this.#held(agent, jobId);
    if (TERMINAL_JOB_STATUSES.includes(job.status)) throw this.#ended(job);
    if (job.status !== 'claimed' || !job.lockedBy) throw new ConflictError(`The job is ${job.status}; only a claimed job can start.`, 'job_not_claimed', { job_status: job.status });
    const now = this.clock();
    if (await agentJobRepository.start(this.db, job.id, job.lockedBy, now, this.settings.leaseMs)) return;
    const after = await this.#held(agent, jobId);
    if (TERMINAL_JOB_STATUSES.includes(after.status)) throw this.#ended(after);
    throw new ConflictError(`The job is ${after.status}; only a claimed job can start.`, 'job_not_claimed', { job_status: after.status });
  }

  /** Heartbeat of a running job, with log lines; answers whether the agent must stop it. */
  async heartbeat(agent: AgentPrincipal, jobId: string, lines: AgentLogLine[]): Promise<{ cancel: boolean }> {
    const job = await this.#held(agent, jobId);
    // Over (cancelled, timed out): tell the agent to stop; its lines have nowhere to go.
    if (TERMINAL_JOB_STATUSES.includes(job.status)) return { cancel: true };
    if (job.status !== 'running' || !job.lockedBy) throw new ConflictError('The job has not been started.', 'job_not_running', { job_status: job.status });
    const now = this.clock();
    if (!(await agentJobRepository.renew(this.db, job.id, job.lockedBy, now + this.settings.leaseMs))) return { cancel: true };
    if (lines.length) await agentJobRepository.addLogs(this.db, job.id, this.codec.sealLines(job.id, lines), now);
    return { cancel: job.cancelRequested };
  }

  /** The agent's result; refused (409) once the job has ended otherwise (timeout, cancel, revocation). */
  async finish(agent: AgentPrincipal, jobId: string, outcome: AgentJobOutcome): Promise<void> {
    const job = await this.#held(agent, jobId);
    if (TERMINAL_JOB_STATUSES.includes(job.status) || !job.lockedBy) throw this.#ended(job);
    const now = this.clock();
    const errorCode = outcome.status === 'completed' ? null : (outcome.error?.code ?? outcome.status).slice(0, 64);
    const done = await agentJobRepository.finish(this.db, job.id, job.lockedBy, { status: outcome.status, resultSealed: this.codec.sealResult(job.id, outcome), errorCode, now });
    if (!done) throw this.#ended((await agentJobRepository.findById(this.db, job.id)) ?? job);
  }
}
