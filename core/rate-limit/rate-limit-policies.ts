import { createHash } from 'node:crypto';
import type { RateLimitConfig } from '../../config/rate-limit-config.ts';
import type { Tier } from '../domain/scopes.ts';
import type { BucketPolicy } from './token-bucket.ts';

/** Who pays for a request: a tenant (authenticated) or a client address (no token). */
export type Payer = { tenantId: string; tier: Tier } | { address: string };

/** A route's own limit, as declared in its options (core/http/rate-limit-settings.ts). */
export interface EndpointLimitSpec {
  key: string;
  perMinute: number;
  burst?: number;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * Turns configuration plus a request's payer and route limit into the buckets to take
 * from. Keys (before the store prefix): `t:<tenant>` tier budget, `a:<address>` clients
 * without a token, `e:<limit>:<payer>[:<account digest>]` per-endpoint limits.
 */
export class RateLimitPolicies {
  readonly #config: RateLimitConfig;

  constructor(config: RateLimitConfig) {
    this.#config = config;
  }

  payerBucket(payer: Payer): BucketPolicy {
    if ('tenantId' in payer) {
      const tier = this.#config.tiers[payer.tier];
      return { key: `t:${payer.tenantId}`, name: payer.tier, capacity: tier.burst, perMinute: tier.perMinute };
    }
    const anon = this.#config.anonymous;
    return { key: `a:${payer.address}`, name: 'anonymous', capacity: anon.burst, perMinute: anon.perMinute };
  }

  /** The route's bucket, or null when the route declares none or endpoint limits are off. */
  endpointBucket(payer: Payer, limit: EndpointLimitSpec | undefined, account?: string): BucketPolicy | null {
    if (!limit || !this.#config.endpointLimits) return null;
    const numbers = this.#config.endpointOverrides[limit.key] ?? limit;
    const who = 'tenantId' in payer ? `t:${payer.tenantId}` : `a:${payer.address}`;
    // Account names come from unauthenticated input: hashed so keys stay short and inert.
    const suffix = account ? `:${digest(account.trim().toLowerCase())}` : '';
    return { key: `e:${limit.key}:${who}${suffix}`, name: limit.key, capacity: numbers.burst ?? numbers.perMinute, perMinute: numbers.perMinute };
  }

  buckets(payer: Payer, limit?: EndpointLimitSpec, account?: string): BucketPolicy[] {
    const endpoint = this.endpointBucket(payer, limit, account);
    return endpoint ? [this.payerBucket(payer), endpoint] : [this.payerBucket(payer)];
  }

  streamSlots(tier: Tier): number {
    return this.#config.tiers[tier].streams;
  }
}
