/**
 * Server-side settings of on-site agents, read from `executors.agent` in config (the
 * same section the `agent` executor plugin is handed as its settings, whose options
 * schema declares these keys, so both validate the same names).
 */
export interface AgentSettings {
  /**
   * Lease of a job an agent holds. A claimed job not started within it goes back to the
   * queue; a running job's lease is renewed by every heartbeat/log call (agents send one
   * at least every third of it) and shows whether its agent is still alive.
   */
  leaseMs: number;
  /** How often a waiting dispatcher or long-poll re-reads the database (dispatch and claims may be in other processes). */
  pollIntervalMs: number;
  /** Longest long-poll an agent may ask for (`wait_seconds`). */
  maxWaitSeconds: number;
  /** An agent seen within this window is `online`. */
  onlineWindowMs: number;
  /** Past the run's timeout, how long the dispatcher waits for the agent's own `timed_out` report before recording it. */
  timeoutGraceMs: number;
  /** Most log lines one run keeps forwarding; later lines are dropped (one notice says so). */
  maxLogLines: number;
}

export const DEFAULT_AGENT_SETTINGS: AgentSettings = {
  leaseMs: 30_000,
  pollIntervalMs: 200,
  maxWaitSeconds: 30,
  onlineWindowMs: 60_000,
  timeoutGraceMs: 1_000,
  maxLogLines: 1_000,
};

/** The settings found in `executors.agent`, defaults for the rest (values are validated by the plugin's options schema). */
export function agentSettingsOf(section: Readonly<Record<string, unknown>> | undefined): AgentSettings {
  const out: AgentSettings = { ...DEFAULT_AGENT_SETTINGS };
  for (const key of Object.keys(out) as Array<keyof AgentSettings>) {
    const value = section?.[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[key] = value;
  }
  return out;
}
