import { ServiceUnavailableError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { MemoryStore } from './memory-store.ts';
import type { RateLimitStore, SlotOutcome } from './rate-limit-store.ts';
import type { RedisStore } from './redis-store.ts';
import type { BucketPolicy, TakeOutcome } from './token-bucket.ts';

export type FailureMode = 'open' | 'closed';

/**
 * Redis in front, with a failure mode for when it cannot answer:
 *  - open (default): this process limits on its own in-memory buckets until Redis is
 *    back, so the API keeps answering and each process still enforces the tier budget
 *    (N processes allow up to N budgets during the outage);
 *  - closed: requests that need a rate-limit decision answer 503 until Redis is back.
 * An outage is logged once when it starts and once when it ends, never per request.
 */
export class FailoverStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  readonly #primary: RedisStore;
  readonly #fallback: MemoryStore;
  readonly #mode: FailureMode;
  readonly #logger: Logger;
  #down = false;

  constructor(primary: RedisStore, fallback: MemoryStore, mode: FailureMode, logger: Logger) {
    this.#primary = primary;
    this.#fallback = fallback;
    this.#mode = mode;
    this.#logger = logger;
  }

  /** Whether the last Redis call failed (and no reconnect has happened since). */
  get degraded(): boolean {
    return this.#down;
  }

  /** Called on a failed command and on each failed (re)connect attempt. */
  failed(err: Error): void {
    if (this.#down) return;
    this.#down = true;
    const behaviour = this.#mode === 'open' ? 'each process now limits on its own in-memory buckets' : 'rate-limited requests answer 503';
    this.#logger.error({ err: err.message }, `rate-limit store: Redis unreachable; ${behaviour} until it is back`);
  }

  recovered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#logger.info('rate-limit store: Redis reachable again; budgets are shared across processes');
  }

  async #attempt<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    try {
      const result = await primary();
      this.recovered();
      return result;
    } catch (err) {
      this.failed(err as Error);
      if (this.#mode === 'closed') throw new ServiceUnavailableError('Rate limiting is temporarily unavailable; retry shortly.', { retry_after: 1 });
      return fallback();
    }
  }

  take(policies: BucketPolicy[], cost: number): Promise<TakeOutcome> {
    return this.#attempt(
      () => this.#primary.take(policies, cost),
      () => this.#fallback.take(policies, cost),
    );
  }

  acquireSlot(key: string, member: string, max: number): Promise<SlotOutcome> {
    return this.#attempt(
      () => this.#primary.acquireSlot(key, member, max),
      () => this.#fallback.acquireSlot(key, member, max),
    );
  }

  /** Releases go to both: the slot lives in whichever store granted it, the other ignores it. */
  async releaseSlot(key: string, member: string): Promise<void> {
    await this.#fallback.releaseSlot(key, member);
    try {
      await this.#primary.releaseSlot(key, member);
    } catch (err) {
      // The Redis slot expires after its TTL once nobody renews it.
      this.failed(err as Error);
    }
  }

  async renewSlots(slots: Array<{ key: string; member: string }>): Promise<void> {
    try {
      await this.#primary.renewSlots(slots);
    } catch (err) {
      this.failed(err as Error);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#primary.close(), this.#fallback.close()]);
  }
}
