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
  /** A second bucket per client address across accounts (`<key>-address`), for unauthenticated payers. */
  perAddress?: number;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * Turns configuration plus a request's payer and route limit into the buckets to take
 * from. Keys (before the store prefix): `t:<tenant>` tier budget, `a:<address>` clients
 * without a token, `e:<limit>:<payer>[:<account digest>]` per-endpoint limits, and
 * `e:<limit>-address:a:<address>` for a limit's per-address bucket across accounts.
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

  /** The route's buckets: none when the route declares no limit or endpoint limits are off. */
  endpointBuckets(payer: Payer, limit: EndpointLimitSpec | undefined, account?: string): BucketPolicy[] {
    if (!limit || !this.#config.endpointLimits) return [];
    const who = 'tenantId' in payer ? `t:${payer.tenantId}` : `a:${payer.address}`;
    // Account names come from unauthenticated input: hashed so keys stay short and inert.
    const suffix = account ? `:${digest(account.trim().toLowerCase())}` : '';
    const buckets = [this.#endpoint(limit.key, limit, `${who}${suffix}`)];
    if (limit.perAddress && 'address' in payer) {
      buckets.push(this.#endpoint(`${limit.key}-address`, { perMinute: limit.perAddress }, who));
    }
    return buckets;
  }

  buckets(payer: Payer, limit?: EndpointLimitSpec, account?: string): BucketPolicy[] {
    return [this.payerBucket(payer), ...this.endpointBuckets(payer, limit, account)];
  }

  #endpoint(name: string, declared: { perMinute: number; burst?: number }, who: string): BucketPolicy {
    const numbers = this.#config.endpointOverrides[name] ?? declared;
    return { key: `e:${name}:${who}`, name, capacity: numbers.burst ?? numbers.perMinute, perMinute: numbers.perMinute };
  }

  streamSlots(tier: Tier): number {
    return this.#config.tiers[tier].streams;
  }
}
