/**
 * The agent protocol's wire types: what crosses between Rampart and an on-site agent on
 * `/api/agent/jobs/*` (docs/api.md, "Agents"). Written once, here, for both sides: the
 * server (`core/agents/`, `plugins/agents/`) and the agent program (`agent/`), which
 * imports nothing else of core but the plugin contract. It imports only the contract.
 */
import type { AgentCommand, ExecutorResult, LogLevel } from './plugin-api/index.ts';

/** A job as the claiming agent receives it (`POST /api/agent/jobs/claim`): everything it needs to run it, parameters opened. */
export interface AgentJob {
  id: string;
  execution_id: string;
  attempt: number;
  command: AgentCommand;
  params: Record<string, unknown>;
  sandbox: boolean;
  /** Time left until the run's timeout, from the server's clock. */
  timeout_ms: number;
  /** The lease: send a heartbeat (logs call) at least every third of it. */
  lease_ms: number;
}

/** A log line an agent streams back (`POST /api/agent/jobs/{id}/logs`, which is also the heartbeat). */
export interface AgentLogLine {
  level: LogLevel;
  message: string;
}

/** What an agent reports at the end of a job (`POST /api/agent/jobs/{id}/result`): the executor result, without a dry-run plan. */
export type AgentJobOutcome = Pick<ExecutorResult, 'status' | 'output' | 'error'>;
