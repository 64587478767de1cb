import Joi from 'joi';

/** How long finished background records are kept (core/retention/retention-sweeper.ts). */
export interface RetentionConfig {
  /** Outbox events older than this are deleted once every active consumer has read them. */
  eventsDays: number;
  /** Delivered or failed webhook deliveries (with their attempts); also bounds `recover`. */
  webhookDeliveriesDays: number;
  /** Delivered or failed scan callbacks. */
  scanCallbacksDays: number;
  sweepIntervalMs: number;
  /** Rows deleted per statement, so a sweep never holds long locks. */
  batchSize: number;
}

const days = Joi.number().integer().min(1).max(3650).required();

export const retentionConfigSchema = Joi.object({
  eventsDays: days,
  webhookDeliveriesDays: days,
  scanCallbacksDays: days,
  sweepIntervalMs: Joi.number().integer().min(10).max(86_400_000).required(),
  batchSize: Joi.number().integer().min(1).max(100_000).required(),
});
