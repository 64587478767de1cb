import Joi from 'joi';

/** `imports` section: other tools' result files (POST /api/findings/import, `rampart import`). */
export interface ImportsConfig {
  /** Largest upload; it streams to a temporary file, never into memory (413 payload_too_large above). */
  maxBytes: number;
  /** Most results (findings, skipped ones included) per file (413 above). */
  maxResults: number;
  /** Largest single result (a JSONL line, a SARIF result, a ZAP alert with its instances), in characters. */
  maxResultBytes: number;
  /** Largest document once its results are left out (SARIF runs with their rules, ZAP site headers), in characters. */
  maxDocumentBytes: number;
  /** Results written per transaction. */
  batchSize: number;
  /** Where uploads are spooled while an import runs; null: the system's temporary folder. */
  spoolDir: string | null;
  /** How long an upload may take to arrive (the route's payload timeout). */
  uploadTimeoutMs: number;
}

export const importsConfigSchema = Joi.object<ImportsConfig>({
  maxBytes: Joi.number().integer().min(1024).max(16 * 1024 ** 3).required(),
  maxResults: Joi.number().integer().min(1).max(10_000_000).required(),
  maxResultBytes: Joi.number().integer().min(1024).max(1024 ** 3).required(),
  maxDocumentBytes: Joi.number().integer().min(1024).max(1024 ** 3).required(),
  batchSize: Joi.number().integer().min(1).max(10_000).required(),
  spoolDir: Joi.string().min(1).allow(null).required(),
  uploadTimeoutMs: Joi.number().integer().min(1000).max(3_600_000).required(),
});
