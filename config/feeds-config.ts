import Joi from 'joi';

/** One feed's scheduled fetch: off while `url` is null. */
export interface FeedSourceConfig {
  /** Where to fetch from: the publisher's address, or a mirror inside an air-gapped site. */
  url: string | null;
  intervalMs: number;
}

/** The KEV and EPSS feeds (core/feeds/, docs/feeds.md). */
export interface FeedsConfig {
  kev: FeedSourceConfig;
  epss: FeedSourceConfig;
  /** A failed fetch is tried again after this long (or at the interval, if sooner). */
  retryMs: number;
  /** A fetch (download and load) is given up after this long. */
  fetchTimeoutMs: number;
  /** Largest feed accepted, in bytes, compressed and decompressed alike: a gzip bomb stops here. */
  maxBytes: number;
  /** How often the worker looks for a due fetch. */
  pollIntervalMs: number;
  leaseMs: number;
  /** Change sets kept per feed (the CVEs each load added, removed or changed), newest first. */
  keepChangeSets: number;
}

const source = Joi.object({
  url: Joi.string().uri({ scheme: ['http', 'https'] }).allow(null).required(),
  intervalMs: Joi.number().integer().min(60_000).max(30 * 86_400_000).required(),
});

export const feedsConfigSchema = Joi.object({
  kev: source.required(),
  epss: source.required(),
  retryMs: Joi.number().integer().min(1000).max(7 * 86_400_000).required(),
  fetchTimeoutMs: Joi.number().integer().min(1000).max(3_600_000).required(),
  maxBytes: Joi.number().integer().min(1024).max(4 * 1024 * 1024 * 1024).required(),
  pollIntervalMs: Joi.number().integer().min(10).max(3_600_000).required(),
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).required(),
  keepChangeSets: Joi.number().integer().min(1).max(365).required(),
});
