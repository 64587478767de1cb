import type { AgentCommand } from '../plugin-api/index.ts';
import { toIso, toIsoRequired } from '../time.ts';

/** An on-site agent as stored (never its token). */
export interface AgentRecord {
  id: string;
  tenantId: string;
  name: string;
  labels: string[];
  tokenPrefix: string;
  createdAt: number;
  updatedAt: number;
  lastSeenAt: number | null;
  revokedAt: number | null;
}

/** Who called an agent-facing route: an agent whose token is valid. */
export type AgentPrincipal = Pick<AgentRecord, 'id' | 'tenantId' | 'name' | 'labels'>;

export const AGENT_JOB_STATUSES = ['queued', 'claimed', 'running', 'completed', 'failed', 'timed_out', 'cancelled'] as const;
export type AgentJobStatus = (typeof AGENT_JOB_STATUSES)[number];
export const TERMINAL_JOB_STATUSES: readonly AgentJobStatus[] = ['completed', 'failed', 'timed_out', 'cancelled'];

export interface AgentJobRecord {
  id: string;
  tenantId: string;
  executionId: string;
  attempt: number;
  target: string;
  command: AgentCommand;
  paramsSealed: string;
  sandbox: boolean;
  timeoutMs: number;
  deadlineAt: number;
  status: AgentJobStatus;
  agentId: string | null;
  lockedBy: string | null;
  lockedUntil: number;
  cancelRequested: boolean;
  resultSealed: string | null;
  errorCode: string | null;
  createdAt: number;
  claimedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
}

export type AgentStatus = 'online' | 'offline' | 'revoked';

export function agentStatus(agent: AgentRecord, now: number, onlineWindowMs: number): AgentStatus {
  if (agent.revokedAt !== null) return 'revoked';
  return agent.lastSeenAt !== null && now - agent.lastSeenAt <= onlineWindowMs ? 'online' : 'offline';
}

/** `GET /api/agents[/{id}]` item. */
export function agentView(agent: AgentRecord, now: number, onlineWindowMs: number) {
  return {
    id: agent.id,
    name: agent.name,
    labels: agent.labels,
    status: agentStatus(agent, now, onlineWindowMs),
    token_prefix: agent.tokenPrefix,
    last_seen_at: toIso(agent.lastSeenAt),
    revoked_at: toIso(agent.revokedAt),
    created_at: toIsoRequired(agent.createdAt),
  };
}

/** What a command is called in listings: the script's file name, never isolate source or parameters. */
export function commandSummary(command: AgentCommand): { kind: AgentCommand['kind']; name: string | null } {
  return { kind: command.kind, name: command.kind === 'local' ? command.script : null };
}

/** `GET /api/agents/{id}/jobs` item: status and timestamps, never parameters, source or output. */
export function jobListView(job: AgentJobRecord) {
  return {
    id: job.id,
    execution_id: job.executionId,
    attempt: job.attempt,
    target: job.target,
    status: job.status,
    command: commandSummary(job.command),
    sandbox: job.sandbox,
    error_code: job.errorCode,
    created_at: toIsoRequired(job.createdAt),
    claimed_at: toIso(job.claimedAt),
    started_at: toIso(job.startedAt),
    finished_at: toIso(job.finishedAt),
  };
}
