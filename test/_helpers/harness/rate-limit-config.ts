import { readFileSync } from 'node:fs';
import type { RateLimitConfig } from '../../../config/rate-limit-config.ts';

const defaults = JSON.parse(readFileSync(new URL('../../../config/default.json', import.meta.url), 'utf8')) as { rateLimit: RateLimitConfig };

/**
 * The production rate limits of config/default.json, as a createTestApp override:
 * config/test.json raises them so other areas' tests never meet a 429.
 */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = defaults.rateLimit;
