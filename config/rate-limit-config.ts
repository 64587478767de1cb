import Joi from 'joi';

/** One token bucket: `burst` tokens at most, refilled continuously at `perMinute` per minute. */
export interface BucketNumbers {
  perMinute: number;
  burst: number;
}

/** A tier's request budget plus its concurrent event-stream connections. */
export interface TierLimits extends BucketNumbers {
  streams: number;
}

/** `rateLimit` section: limits per tier and how the limiter stores its counters. */
export interface RateLimitConfig {
  /** false: no limiter at all (no headers, no 429); the benchmark's baseline. */
  enabled: boolean;
  tiers: { standard: TierLimits; premium: TierLimits; enterprise: TierLimits };
  /** Requests without a tenant (login, 401s, docs), keyed by client address. */
  anonymous: BucketNumbers;
  /** false: routes' own per-endpoint limits are not applied (test config), tier budgets still are. */
  endpointLimits: boolean;
  /** Per-endpoint numbers by limit key (e.g. `login`), replacing what the route declares. */
  endpointOverrides: Record<string, { perMinute: number; burst?: number }>;
  /** Used only when redis.url is set. */
  redis: {
    keyPrefix: string;
    /** open: each process falls back to its own in-memory buckets; closed: 503 until Redis answers. */
    failureMode: 'open' | 'closed';
    connectTimeoutMs: number;
    commandTimeoutMs: number;
  };
  streams: {
    /** A Redis stream slot not renewed for this long is dropped (crashed process). */
    slotTtlSeconds: number;
    /** retry_after of a 429 for a full set of stream slots: a hint, nobody knows when a stream closes. */
    retryAfterSeconds: number;
  };
}

const count = Joi.number().integer().min(1).max(1_000_000);
const bucket = { perMinute: count.required(), burst: count.required() };
const tier = Joi.object({ ...bucket, streams: Joi.number().integer().min(0).max(100_000).required() });

export const rateLimitConfigSchema = Joi.object<RateLimitConfig>({
  enabled: Joi.boolean().required(),
  tiers: Joi.object({ standard: tier.required(), premium: tier.required(), enterprise: tier.required() }).required(),
  anonymous: Joi.object(bucket).required(),
  endpointLimits: Joi.boolean().required(),
  endpointOverrides: Joi.object()
    .pattern(/^[a-z0-9][a-z0-9_-]{0,63}$/, Joi.object({ perMinute: count.required(), burst: count }))
    .required(),
  redis: Joi.object({
    keyPrefix: Joi.string().max(64).pattern(/^[\x21-\x7e]*$/).allow('').required(),
    failureMode: Joi.string().valid('open', 'closed').required(),
    connectTimeoutMs: Joi.number().integer().min(50).max(60_000).required(),
    commandTimeoutMs: Joi.number().integer().min(10).max(60_000).required(),
  }).required(),
  streams: Joi.object({
    slotTtlSeconds: Joi.number().integer().min(3).max(3600).required(),
    retryAfterSeconds: Joi.number().integer().min(1).max(3600).required(),
  }).required(),
});
