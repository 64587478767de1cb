import Joi from 'joi';

/** `playbooks` section: the playbook run engine (core/playbooks/runs) and triggers (core/playbooks/triggers). */
export interface PlaybooksConfig {
  /**
   * How deep a chain of playbook runs may go when a run's own actions produce events that
   * trigger playbooks again: a run caused by a run of depth d has depth d + 1, and a run
   * deeper than this is not created (a `system.alert` of type `playbook_loop` instead).
   */
  maxTriggerDepth: number;
  /**
   * The width bound: how many runs one root run may cause in total, at any depth (a run
   * with S parallel action steps triggered by action.completed otherwise causes S + S² + …).
   * Beyond it a caused run is not created (a `playbook_loop` system.alert instead).
   */
  maxRunsPerRoot: number;
  /** How often the run worker looks for due runs (it is also woken by events and new runs). */
  pollIntervalMs: number;
  /** A claimed run's lease; a run whose worker died is continued by another once it lapses. */
  leaseMs: number;
  /** Runs advanced at once by one worker process. */
  concurrency: number;
}

export const playbooksConfigSchema = Joi.object<PlaybooksConfig>({
  maxTriggerDepth: Joi.number().integer().min(0).max(20).required(),
  maxRunsPerRoot: Joi.number().integer().min(0).max(100_000).required(),
  pollIntervalMs: Joi.number().integer().min(10).max(600_000).required(),
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).required(),
  concurrency: Joi.number().integer().min(1).max(256).required(),
});
