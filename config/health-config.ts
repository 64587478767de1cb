import Joi from 'joi';

/** `health` section: what GET /api/health/ready holds a process to. */
export interface HealthConfig {
  /**
   * How far a background loop may fall behind before the process is not ready: a round
   * running longer than this (a hung call) or a next round this late. The longest
   * legitimate round, a 2,000,000-row export, takes about a minute.
   */
  maxLoopLagMs: number;
  /** Each dependency check (database, migrations, Redis) gives up after this long. */
  checkTimeoutMs: number;
}

export const healthConfigSchema = Joi.object<HealthConfig>({
  maxLoopLagMs: Joi.number().integer().min(1000).max(24 * 3_600_000).required(),
  checkTimeoutMs: Joi.number().integer().min(100).max(60_000).required(),
});
