import type { Queryable } from '../db/create-db.ts';
import type { AgentRun } from '../agents/agent-dispatcher.ts';
import type { ExecutorAgents } from '../plugin-api/index.ts';
import type { ActionVersion, ParameterSpec, ValidatedParameters } from '../actions/action-version.ts';
import type { ExecutionRow } from './execution-rows.ts';

/**
 * What the run engine needs of its neighbours, as narrow ports: the action catalog
 * (core/actions), the credential store (core/secrets), approvals (core/approvals) and
 * on-site agents (core/agents). Each is wired in core/action-runs/action-runtime.ts.
 */
export interface CatalogPort {
  forRun(tenantId: string, actionId: string): Promise<ActionVersion>;
  forRunByVersion(tenantId: string, actionId: string, version: string): Promise<ActionVersion>;
  validateParameters(specs: readonly ParameterSpec[], input: Record<string, unknown>): ValidatedParameters;
}

export interface CredentialPort {
  /** Values by credential name; in sandbox mode the sandbox values (never production ones). Throws a 400 naming a missing one. */
  resolve(tenantId: string, names: string[], mode: { sandbox: boolean }): Promise<Record<string, string>>;
}

export interface ApprovalRequestInput {
  tenantId: string;
  subject: { kind: string; id: string };
  message: string;
  details?: Record<string, unknown>;
  requiredApprovals: number;
  allowed?: { scopes?: string[]; user_ids?: string[] } | null;
  expiresInSeconds: number;
  onExpiry: 'fail' | 'approve' | 'deny';
  requestedBy: { userId: string | null; tokenId: string | null };
}

/** What an approval outcome tells the run: `resolvedBy` says whether a person or the expiry decided. */
export interface ResolvedApproval {
  id: string;
  tenantId: string;
  status: string;
  subject: { kind: string; id: string };
  resolvedBy: string | null;
}

export interface ApprovalPort {
  request(input: ApprovalRequestInput, db?: Queryable): Promise<{ id: string }>;
  onResolved(kind: string, handler: (request: ResolvedApproval) => Promise<void>): void;
  /** Cancels a pending request; `cancelled` is false when it had already resolved (its status says how). */
  cancel(tenantId: string, id: string, reason: string): Promise<{ cancelled: boolean; request: { status: string } }>;
}

/** One run's side of a dispatch to an on-site agent (core/agents). */
export type { AgentRun };

/** Builds a run's `ctx.agents`; absent when agents are not wired (the agent executor then fails clearly). */
export type AgentHandleFactory = (run: AgentRun) => ExecutorAgents;

/** What a finished attempt changes, handed to playbook steps later. */
export type ExecutionListener = (row: ExecutionRow) => void | Promise<void>;
