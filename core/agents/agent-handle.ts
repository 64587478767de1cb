import type { ExecutorAgents, LogLevel } from '../plugin-api/index.ts';
import type { AgentService } from './agent-service.ts';

/**
 * `ctx.agents` of one executor run (built by the run engine): jobs go to the run's
 * tenant's agents, keyed by the run's execution id and attempt, under its signal and
 * timeout, and the agent's log lines arrive through the run's `log`.
 */
export function createAgentHandle(
  agents: AgentService,
  run: { tenantId: string; executionId: string; attempt: number; sandbox: boolean; timeoutMs: number; signal: AbortSignal; log: (level: LogLevel, message: string) => void },
): ExecutorAgents {
  return { run: (job) => agents.dispatch(run, job) };
}
