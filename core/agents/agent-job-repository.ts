import type { Knex } from 'knex';
import type { Queryable } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { AgentCommand } from '../plugin-api/index.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import type { AgentJobRecord, AgentJobStatus, AgentPrincipal } from './agent-views.ts';

interface JobRow {
  id: string; tenant_id: string; execution_id: string; attempt: number; target: string; command: string; params_sealed: string;
  sandbox: number | boolean; timeout_ms: number; deadline_at: number | string; status: AgentJobStatus; agent_id: string | null;
  locked_by: string | null; locked_until: number | string; cancel_requested: number | boolean; result_sealed: string | null;
  error_code: string | null; created_at: number | string; claimed_at: number | string | null; started_at: number | string | null;
  finished_at: number | string | null;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));
const LIVE = ['queued', 'claimed', 'running'];

function toJob(r: JobRow): AgentJobRecord {
  return {
    id: r.id, tenantId: r.tenant_id, executionId: r.execution_id, attempt: Number(r.attempt), target: r.target,
    command: fromJson<AgentCommand>(r.command, { kind: 'local', script: '' }), paramsSealed: r.params_sealed, sandbox: Boolean(r.sandbox),
    timeoutMs: Number(r.timeout_ms), deadlineAt: Number(r.deadline_at), status: r.status, agentId: r.agent_id, lockedBy: r.locked_by,
    lockedUntil: Number(r.locked_until), cancelRequested: Boolean(r.cancel_requested), resultSealed: r.result_sealed, errorCode: r.error_code,
    createdAt: Number(r.created_at), claimedAt: num(r.claimed_at), startedAt: num(r.started_at), finishedAt: num(r.finished_at),
  };
}

/**
 * The jobs an agent may take: its tenant's, aimed at its name or one of its labels, not
 * cancelled, not past their deadline; queued, or claimed by an agent that never started
 * them within the lease (back in the queue). Running jobs are never offered again.
 */
function queueFor(agent: AgentPrincipal, now: number): LeaseQueue {
  return new LeaseQueue({
    table: 'agent_jobs',
    ready: { tenant_id: agent.tenantId, status: ['queued', 'claimed'], target: [agent.name, ...agent.labels], cancel_requested: 0 },
    readyWhere: (q) => void q.where('deadline_at', '>', now),
    order: [{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }],
    onClaim: (_db, at) => ({ status: 'claimed', agent_id: agent.id, claimed_at: at, started_at: null, updated_at: at }),
  });
}

export interface NewAgentJob {
  id: string; tenantId: string; executionId: string; attempt: number; target: string; command: AgentCommand;
  paramsSealed: string; sandbox: boolean; timeoutMs: number; now: number;
}

/** A running job: what the agent's heartbeat renews (its log posts). */
const running = new LeaseQueue({ table: 'agent_jobs', ready: { status: 'queued' }, held: { status: 'running' }, order: [{ column: 'created_at' }] });
/** A job its agent holds, started or not: what its result may end. */
const held = new LeaseQueue({ table: 'agent_jobs', ready: { status: 'queued' }, held: { status: ['claimed', 'running'] }, order: [{ column: 'created_at' }] });

/** A job claimed but not started: what its start may move on. */
const claimed = new LeaseQueue({ table: 'agent_jobs', ready: { status: 'queued' }, held: { status: 'claimed' }, order: [{ column: 'created_at' }] });

const ended = (now: number) => ({ finished_at: now, updated_at: now });

export const agentJobRepository = {
  /** Inserts the job; false when one exists already for (execution_id, attempt). */
  async insert(db: Queryable, j: NewAgentJob): Promise<boolean> {
    try {
      await db('agent_jobs').insert({
        id: j.id, tenant_id: j.tenantId, execution_id: j.executionId, attempt: j.attempt, target: j.target, command: toJson(j.command),
        params_sealed: j.paramsSealed, sandbox: j.sandbox, timeout_ms: j.timeoutMs, deadline_at: j.now + j.timeoutMs, status: 'queued',
        agent_id: null, locked_by: null, locked_until: 0, cancel_requested: false, result_sealed: null, error_code: null,
        created_at: j.now, updated_at: j.now,
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  },

  async findByAttempt(db: Queryable, executionId: string, attempt: number): Promise<AgentJobRecord | null> {
    const row = (await db('agent_jobs').where({ execution_id: executionId, attempt }).first()) as JobRow | undefined;
    return row ? toJob(row) : null;
  },

  async findById(db: Queryable, id: string): Promise<AgentJobRecord | null> {
    const row = (await db('agent_jobs').where({ id }).first()) as JobRow | undefined;
    return row ? toJob(row) : null;
  },

  /** The oldest job this agent may take, claimed for `token`. */
  async claim(db: Queryable, agent: AgentPrincipal, token: string, now: number, leaseMs: number): Promise<AgentJobRecord | null> {
    const [id] = await queueFor(agent, now).claim(db, { token, now, leaseMs });
    return id ? this.findById(db, id) : null;
  },

  /** claimed → running for the claim's holder, unless a cancel was asked for meanwhile. */
  async start(db: Queryable, id: string, token: string, now: number, leaseMs: number): Promise<boolean> {
    // One guarded statement: a cancel asked for meanwhile must win.
    return claimed.update(db, id, token, { status: 'running', started_at: now, locked_until: now + leaseMs, updated_at: now }, { cancel_requested: false });
  },

  /** Heartbeat of a running job. */
  async renew(db: Queryable, id: string, token: string, until: number): Promise<boolean> {
    return running.renew(db, id, token, until);
  },

  /** The agent's result, recorded only while it still holds the job. */
  async finish(db: Queryable, id: string, token: string, o: { status: 'completed' | 'failed' | 'timed_out'; resultSealed: string; errorCode: string | null; now: number }): Promise<boolean> {
    return held.finish(db, id, token, { status: o.status, result_sealed: o.resultSealed, error_code: o.errorCode, finished_at: o.now, updated_at: o.now });
  },

  /** Ends a job that is not over yet (cancel, timeout) from the dispatching side; false when it already ended. */
  async endLive(db: Queryable, id: string, o: { status: 'cancelled' | 'timed_out' | 'failed'; errorCode: string; now: number; cancel?: boolean }): Promise<boolean> {
    return (await held.endWhere(db, { id, status: LIVE }, { status: o.status, error_code: o.errorCode, ...(o.cancel ? { cancel_requested: true } : {}), ...ended(o.now) })) > 0;
  },

  /**
   * Jobs past their deadline (plus grace) whose dispatcher is gone: never taken in time
   * (`no_agent`), or running with an agent that fell silent (`agent_lost`) or did not report (`timed_out`).
   */
  async expireOverdue(db: Queryable, tenantId: string, now: number, graceMs: number): Promise<void> {
    const overdue = (q: Knex.QueryBuilder) => q.where('deadline_at', '<', now - graceMs);
    const timedOut = (code: string) => ({ status: 'timed_out', error_code: code, ...ended(now) });
    await held.endWhere(db, { tenant_id: tenantId, status: ['queued', 'claimed'] }, timedOut('no_agent'), (q) => void overdue(q));
    await held.endWhere(db, { tenant_id: tenantId, status: 'running' }, timedOut('agent_lost'), (q) => void overdue(q).where('locked_until', '<', now));
    await held.endWhere(db, { tenant_id: tenantId, status: 'running' }, timedOut('timed_out'), (q) => void overdue(q));
  },

  /** A revoked agent: claimed jobs go back to the queue, running ones fail (it can no longer report). */
  async releaseAgent(db: Queryable, agentId: string, now: number): Promise<void> {
    await held.endWhere(db, { agent_id: agentId, status: 'claimed' }, { status: 'queued', agent_id: null, claimed_at: null, updated_at: now });
    await held.endWhere(db, { agent_id: agentId, status: 'running' }, { status: 'failed', error_code: 'agent_revoked', ...ended(now) });
  },

  async listForAgent(db: Queryable, tenantId: string, agentId: string, page: PageRequest): Promise<Page<AgentJobRecord>> {
    const result = await paginate<JobRow>(db('agent_jobs').where({ tenant_id: tenantId, agent_id: agentId }), page, (q) => q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    return { rows: result.rows.map(toJob), total: result.total };
  },

  async addLogs(db: Queryable, jobId: string, linesSealed: string, now: number): Promise<void> {
    await db('agent_job_logs').insert({ job_id: jobId, lines_sealed: linesSealed, created_at: now });
  },

  /** The oldest batches of log lines waiting to be forwarded. */
  async pendingLogs(db: Queryable, jobId: string, limit: number): Promise<Array<{ id: number; linesSealed: string }>> {
    const rows = (await db('agent_job_logs').where({ job_id: jobId }).orderBy('id').limit(limit).select('id', 'lines_sealed')) as Array<{ id: number; lines_sealed: string }>;
    return rows.map((r) => ({ id: Number(r.id), linesSealed: r.lines_sealed }));
  },

  async deleteLogs(db: Queryable, ids: number[]): Promise<void> {
    if (ids.length) await db('agent_job_logs').whereIn('id', ids).delete();
  },
};
