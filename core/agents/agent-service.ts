import type { Db } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import type { PageRequest } from '../db/paginate.ts';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { AgentJobRequest, ExecutorResult } from '../plugin-api/index.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { dispatchAgentJob, type AgentRun } from './agent-dispatcher.ts';
import type { AgentJob, AgentJobOutcome, AgentLogLine } from '../agent-protocol.ts';
import { AgentJobCodec } from './agent-job-codec.ts';
import { AgentJobProtocol } from './agent-job-protocol.ts';
import { agentJobRepository } from './agent-job-repository.ts';
import { agentRepository } from './agent-repository.ts';
import { DEFAULT_AGENT_SETTINGS, type AgentSettings } from './agent-settings.ts';
import { agentTokenHash, generateAgentToken } from './agent-token.ts';
import type { AgentJobRecord, AgentPrincipal, AgentRecord } from './agent-views.ts';
import { AgentWakeups } from './agent-wakeups.ts';

export const AGENT_NAME = /^[a-z0-9_.-]{1,64}$/;
const LABEL = AGENT_NAME;
// last_seen_at is for the online/offline view: one write per few seconds per agent is enough.
const TOUCH_INTERVAL_MS = 5_000;

/** Agent ids: `agt_` + a ULID (the shared prefix list has none for agents yet). */
const agentId = (now: number) => `agt_${newId('job', now).slice(4)}`;

/** Long polls one agent may hold open at once per server process (the agent itself holds one). */
export const MAX_WAITING_POLLS = 4;

/**
 * On-site execution agents: the admin side (register, list, revoke, job history), the
 * agent side (token authentication, claim/start/heartbeat/result: AgentJobProtocol) and
 * the run side (`dispatch`, used by createAgentHandle for an executor run's `ctx.agents`).
 */
export class AgentService {
  readonly settings: AgentSettings;
  readonly #codec: AgentJobCodec;
  readonly #wakeups = new AgentWakeups();
  readonly #protocol: AgentJobProtocol;
  /** Waiting long polls per agent id, in this process. */
  readonly #polls = new Map<string, number>();

  constructor(private readonly db: Db, secretBox: SecretBox, settings: Partial<AgentSettings> = {}, private readonly clock: () => number = Date.now) {
    this.settings = { ...DEFAULT_AGENT_SETTINGS, ...settings };
    this.#codec = new AgentJobCodec(secretBox);
    this.#protocol = new AgentJobProtocol(db, this.#codec, this.settings, this.#wakeups, clock);
  }

  /** Registers an agent; the token is returned once, only its hash is kept. */
  async register(tenantId: string, input: { name: string; labels?: string[] }): Promise<{ agent: AgentRecord; token: string }> {
    const labels = [...new Set(input.labels ?? [])];
    const details = [
      ...(AGENT_NAME.test(input.name) ? [] : [{ field: 'name', message: 'name must be 1-64 of a-z, 0-9, _ . -' }]),
      ...labels.flatMap((l, i) => (LABEL.test(l) ? [] : [{ field: `labels.${i}`, message: 'a label must be 1-64 of a-z, 0-9, _ . -' }])),
      ...(labels.length > 32 ? [{ field: 'labels', message: 'at most 32 labels' }] : []),
    ];
    if (details.length) throw new ValidationError('Invalid agent.', details);
    const exists = () => new ConflictError(`An agent named "${input.name}" exists in this tenant (a revoked agent keeps its name).`, 'agent_exists');
    if (await agentRepository.findByName(this.db, tenantId, input.name)) throw exists();
    const now = this.clock();
    const id = agentId(now);
    const issued = generateAgentToken();
    try {
      await agentRepository.insert(this.db, { id, tenantId, name: input.name, labels, tokenHash: issued.hash, tokenPrefix: issued.prefix, now });
    } catch (err) {
      if (isUniqueViolation(err)) throw exists();
      throw err;
    }
    return { agent: await this.get(tenantId, id), token: issued.token };
  }

  list(tenantId: string, page: PageRequest) {
    return agentRepository.list(this.db, tenantId, page);
  }

  async get(tenantId: string, id: string): Promise<AgentRecord> {
    const agent = await agentRepository.findById(this.db, tenantId, id);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  /** Revokes at once (the token stops working); its claimed jobs go back to the queue, its running ones fail `agent_revoked`. */
  async revoke(tenantId: string, id: string): Promise<void> {
    await this.get(tenantId, id);
    const now = this.clock();
    if (await agentRepository.revoke(this.db, tenantId, id, now)) await agentJobRepository.releaseAgent(this.db, id, now);
  }

  async listJobs(tenantId: string, agentId: string, page: PageRequest): Promise<{ rows: AgentJobRecord[]; total: number }> {
    await this.get(tenantId, agentId);
    return agentJobRepository.listForAgent(this.db, tenantId, agentId, page);
  }

  /** The agent a token belongs to, or null (unknown or revoked); records that it was seen. */
  async authenticate(token: string): Promise<AgentPrincipal | null> {
    const agent = await agentRepository.findByTokenHash(this.db, agentTokenHash(token));
    if (!agent || agent.revokedAt !== null) return null;
    const now = this.clock();
    if (agent.lastSeenAt === null || now - agent.lastSeenAt >= TOUCH_INTERVAL_MS) await agentRepository.touch(this.db, agent.id, now);
    return { id: agent.id, tenantId: agent.tenantId, name: agent.name, labels: agent.labels };
  }

  /**
   * A long poll for a job. One agent may hold {@link MAX_WAITING_POLLS} of them at once in
   * this process (an agent needs one; 200 cost most of a core): a further one is a 429.
   */
  async claim(agent: AgentPrincipal, waitMs: number, signal?: AbortSignal): Promise<AgentJob | null> {
    const waiting = this.#polls.get(agent.id) ?? 0;
    if (waiting >= MAX_WAITING_POLLS) throw new RateLimitedError(1, `This agent already has ${MAX_WAITING_POLLS} waiting polls for jobs; wait for one to answer.`);
    this.#polls.set(agent.id, waiting + 1);
    try {
      return await this.#protocol.claim(agent, Math.min(waitMs, this.settings.maxWaitSeconds * 1000), signal);
    } finally {
      const left = (this.#polls.get(agent.id) ?? 1) - 1;
      if (left > 0) this.#polls.set(agent.id, left);
      else this.#polls.delete(agent.id);
    }
  }

  start(agent: AgentPrincipal, jobId: string): Promise<void> {
    return this.#protocol.start(agent, jobId);
  }

  heartbeat(agent: AgentPrincipal, jobId: string, lines: AgentLogLine[] = []): Promise<{ cancel: boolean }> {
    return this.#protocol.heartbeat(agent, jobId, lines);
  }

  finish(agent: AgentPrincipal, jobId: string, outcome: AgentJobOutcome): Promise<void> {
    return this.#protocol.finish(agent, jobId, outcome);
  }

  /** Queues a job for an agent and settles with its result (see dispatchAgentJob). */
  dispatch(run: AgentRun, job: AgentJobRequest): Promise<ExecutorResult> {
    return dispatchAgentJob({ db: this.db, codec: this.#codec, settings: this.settings, wakeups: this.#wakeups, clock: this.clock }, run, job);
  }

  /** Ends every waiting long poll in this process (server shutdown); later claims answer at once. */
  interruptWaits(): void {
    this.#wakeups.close();
  }
}
