import Joi from 'joi';

/** A canned answer to outbound HTTP in sandbox runs when no sandbox target is configured. */
export interface CannedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * `executors` section: the action run engine (core/action-runs) and the admin settings
 * of the built-in executor plugins. `local`, `notification` and `agent` are handed to the
 * executor plugin of that name as its settings (`ctx.settings`), validated by its own
 * options schema at start-up.
 */
export interface ExecutorsConfig {
  /** Action runs executing at once in one worker process. */
  concurrency: number;
  /** Action runs of one action executing at once across all processes; more wait in `pending`. */
  perActionConcurrency: number;
  /** How often the run worker looks for pending runs (it is also woken when one is created). */
  pollIntervalMs: number;
  /** A running run's lease; the worker renews it, and a run whose worker died is failed (`worker_lost`) once it lapses. */
  leaseMs: number;
  /** How long `POST /api/actions/{id}/execute` waits for the run to finish before answering 202. */
  executeWaitMs: number;
  /** Extra time an executor gets past its timeout to stop before the engine records `timed_out` itself. */
  killGraceMs: number;
  /**
   * Each tier's share of `concurrency` a tenant may hold at once (core/action-runs/tenant-share.ts);
   * a tier left out keeps its default (standard 1/2, premium 2/3, enterprise 3/4). 1 lets one
   * tenant take every slot: a single-tenant installation's choice, at the price of fairness.
   */
  tenantShares?: Partial<Record<'standard' | 'premium' | 'enterprise', number>>;
  /** Script actions (isolated-vm). */
  script: { memoryMb: number };
  /** Sandbox runs: where their outbound HTTP goes. */
  sandbox: { httpTarget: string | null; cannedResponse: CannedResponse };
  /** Settings of the built-in executor plugins, by plugin name. */
  local: Record<string, unknown>;
  notification: Record<string, unknown>;
  agent: Record<string, unknown>;
}

export const executorsConfigSchema = Joi.object<ExecutorsConfig>({
  concurrency: Joi.number().integer().min(1).max(256).required(),
  perActionConcurrency: Joi.number().integer().min(1).max(256).required(),
  pollIntervalMs: Joi.number().integer().min(10).max(600_000).required(),
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).required(),
  executeWaitMs: Joi.number().integer().min(0).max(300_000).required(),
  killGraceMs: Joi.number().integer().min(0).max(60_000).required(),
  tenantShares: Joi.object({
    standard: Joi.number().greater(0).max(1),
    premium: Joi.number().greater(0).max(1),
    enterprise: Joi.number().greater(0).max(1),
  }),
  script: Joi.object({ memoryMb: Joi.number().integer().min(8).max(1024).required() }).required(),
  sandbox: Joi.object({
    httpTarget: Joi.string().uri({ scheme: ['http', 'https'] }).allow(null).required(),
    cannedResponse: Joi.object({
      status: Joi.number().integer().min(100).max(599).required(),
      headers: Joi.object().pattern(Joi.string(), Joi.string()).required(),
      body: Joi.string().allow('').max(1_000_000).required(),
    }).required(),
  }).required(),
  local: Joi.object().unknown(true).required(),
  notification: Joi.object().unknown(true).required(),
  agent: Joi.object().unknown(true).required(),
});
