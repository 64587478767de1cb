import Joi from 'joi';

/** `exports` section: finding exports (POST /api/findings/export) and their background files. */
export interface ExportsConfig {
  /** Where background export files are written, one sub-folder per tenant. */
  directory: string;
  /** Exports of at most this many rows stream back in the response; larger ones run in the background (202). */
  syncMaxRows: number;
  /** Upper bound of a CSV or JSON export; above it the request is a 400 export_too_large. */
  maxRows: number;
  /** Upper bound of a PDF export (one block of details per finding). */
  pdfMaxRows: number;
  /** A finished export file is downloadable for this long, then deleted. */
  ttlSeconds: number;
  /** Queued plus running background exports per tenant; more is a 409 export_limit_reached. */
  maxPendingPerTenant: number;
  /** How often the export worker looks for queued jobs (it is also woken when one is created). */
  pollIntervalMs: number;
  /** A running job's lease; a worker renews it while writing, another worker takes the job over after it lapses. */
  leaseMs: number;
  /** How often expired export files are deleted. */
  sweepIntervalMs: number;
}

export const exportsConfigSchema = Joi.object<ExportsConfig>({
  directory: Joi.string().min(1).required(),
  syncMaxRows: Joi.number().integer().min(0).max(10_000_000).required(),
  maxRows: Joi.number().integer().min(1).max(100_000_000).required(),
  pdfMaxRows: Joi.number().integer().min(1).max(1_000_000).required(),
  ttlSeconds: Joi.number().integer().min(1).max(30 * 24 * 3600).required(),
  maxPendingPerTenant: Joi.number().integer().min(1).max(1000).required(),
  pollIntervalMs: Joi.number().integer().min(10).max(600_000).required(),
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).required(),
  sweepIntervalMs: Joi.number().integer().min(10).max(3_600_000).required(),
});
