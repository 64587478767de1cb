import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/load-config.ts';
import { RateLimitedError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Tier } from '../domain/scopes.ts';
import { FailoverStore } from './failover-store.ts';
import { MemoryStore } from './memory-store.ts';
import { bindingView, retryAfterSeconds } from './rate-limit-headers.ts';
import { RateLimitPolicies, type EndpointLimitSpec, type Payer } from './rate-limit-policies.ts';
import type { Clock, RateLimitStore } from './rate-limit-store.ts';
import { RedisStore } from './redis-store.ts';
import type { BucketView, TakeOutcome } from './token-bucket.ts';

/** 429 for an empty bucket; carries the buckets so the response gets their headers. */
export class BucketsExhaustedError extends RateLimitedError {
  constructor(readonly views: BucketView[]) {
    const { policy } = bindingView(views, true);
    const retryAfter = retryAfterSeconds(views);
    super(retryAfter, `Rate limit "${policy.name}" exceeded (${policy.perMinute} requests per minute, burst ${policy.capacity}); retry in ${retryAfter} s.`);
  }
}

/** 429 for a tenant whose concurrent event-stream connections are all in use. */
export class StreamSlotsExhaustedError extends RateLimitedError {
  constructor(
    readonly limit: number,
    readonly inUse: number,
    retryAfter: number,
  ) {
    super(retryAfter, `All ${limit} concurrent event-stream connections of this tenant are in use; close one or retry later.`);
  }
}

/** Frees a stream slot. Idempotent: call it on close, on error and on disconnect alike. */
export type ReleaseSlot = () => void;

/**
 * The rate limiter of one process: tier and per-endpoint token buckets and concurrent
 * stream slots, over the memory store or Redis (redis.url set). Hapi-free: the HTTP
 * glue is core/http/rate-limit-plugin.ts.
 */
export class RateLimiter {
  readonly policies: RateLimitPolicies;
  readonly store: RateLimitStore;
  readonly #config: Config['rateLimit'];
  readonly #logger: Logger;
  readonly #liveSlots = new Map<string, string>();
  readonly #renewer: NodeJS.Timeout | null;

  constructor(config: Config['rateLimit'], store: RateLimitStore, logger: Logger) {
    this.#config = config;
    this.store = store;
    this.#logger = logger;
    this.policies = new RateLimitPolicies(config);
    // Redis slots carry a TTL so a crashed process cannot hold them forever; live ones are renewed well before it.
    this.#renewer = store.kind === 'redis' ? setInterval(() => void this.renewSlots(), (config.streams.slotTtlSeconds * 1000) / 3) : null;
    this.#renewer?.unref();
  }

  get enabled(): boolean {
    return this.#config.enabled;
  }

  /** Takes one token from the payer's tier bucket and the endpoint bucket; throws 429 when either is empty. */
  async charge(payer: Payer, limit?: EndpointLimitSpec, account?: string): Promise<TakeOutcome> {
    const outcome = await this.store.take(this.policies.buckets(payer, limit, account), 1);
    if (!outcome.allowed) {
      throw new BucketsExhaustedError(outcome.views);
    }
    return outcome;
  }

  /**
   * `charge` without a promise when the store decides in this process (the memory store):
   * the outcome, or the 429 thrown; undefined when the store must be asked asynchronously
   * (Redis), and then nothing was taken.
   */
  chargeNow(payer: Payer, limit?: EndpointLimitSpec, account?: string): TakeOutcome | undefined {
    if (!this.store.takeNow) return undefined;
    const outcome = this.store.takeNow(this.policies.buckets(payer, limit, account), 1);
    if (!outcome.allowed) throw new BucketsExhaustedError(outcome.views);
    return outcome;
  }

  /** The same buckets without taking anything: headers for responses that cost nothing. */
  peek(payer: Payer, limit?: EndpointLimitSpec, account?: string): Promise<TakeOutcome> {
    return this.store.take(this.policies.buckets(payer, limit, account), 0);
  }

  /** `peek` without a promise when the store decides in this process; undefined otherwise. */
  peekNow(payer: Payer, limit?: EndpointLimitSpec, account?: string): TakeOutcome | undefined {
    return this.store.takeNow?.(this.policies.buckets(payer, limit, account), 0);
  }

  /**
   * One of the tenant's concurrent event-stream connections (Standard 5, Premium 20,
   * Enterprise 100). Resolves to the function that frees it; throws
   * StreamSlotsExhaustedError (429) when all are in use.
   */
  async acquireStreamSlot(caller: { tenantId: string; tier: Tier }): Promise<ReleaseSlot> {
    const key = `s:${caller.tenantId}`;
    const member = randomUUID();
    const max = this.policies.streamSlots(caller.tier);
    const outcome = await this.store.acquireSlot(key, member, max);
    if (!outcome.acquired) throw new StreamSlotsExhaustedError(max, outcome.inUse, this.#config.streams.retryAfterSeconds);
    this.#liveSlots.set(member, key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#liveSlots.delete(member);
      this.store.releaseSlot(key, member).catch((err: Error) => this.#logger.warn({ err: err.message }, 'could not release a stream slot; it expires on its own'));
    };
  }

  /** Slots this process holds (tests, and the renewal heartbeat). */
  get liveSlots(): number {
    return this.#liveSlots.size;
  }

  async renewSlots(): Promise<void> {
    const slots = [...this.#liveSlots].map(([member, key]) => ({ key, member }));
    await this.store.renewSlots(slots).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#renewer) clearInterval(this.#renewer);
    await this.store.close();
  }
}

/**
 * The limiter for a configuration: the memory store, or Redis with the configured
 * failure mode when redis.url is set. Waits up to connectTimeoutMs for Redis so the
 * first requests already share budgets; an unreachable Redis does not stop start-up.
 */
export async function createRateLimiter(config: Config, logger: Logger, options: { clock?: Clock } = {}): Promise<RateLimiter> {
  const rl = config.rateLimit;
  if (!config.redis.url) return new RateLimiter(rl, new MemoryStore(options.clock), logger);
  let failover: FailoverStore | null = null;
  const redis = new RedisStore({
    url: config.redis.url,
    keyPrefix: rl.redis.keyPrefix,
    connectTimeoutMs: rl.redis.connectTimeoutMs,
    commandTimeoutMs: rl.redis.commandTimeoutMs,
    slotTtlMs: rl.streams.slotTtlSeconds * 1000,
    clock: options.clock,
    onError: (err) => failover?.failed(err),
    onReady: () => failover?.recovered(),
  });
  failover = new FailoverStore(redis, new MemoryStore(options.clock), rl.redis.failureMode, logger);
  if (!(await redis.ready())) failover.failed(new Error(`no answer within ${rl.redis.connectTimeoutMs} ms`));
  return new RateLimiter(rl, failover, logger);
}
