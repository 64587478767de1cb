import type { Clock, RateLimitStore, SlotOutcome } from './rate-limit-store.ts';
import { idleTtlMs, takeFrom, type BucketPolicy, type BucketState, type TakeOutcome } from './token-bucket.ts';

const SWEEP_INTERVAL_MS = 60_000;

interface Entry extends BucketState {
  /** When the bucket will be full again: after that the entry carries no information. */
  fullAt: number;
}

/**
 * Buckets and slots in this process's memory: the default store (nothing to install),
 * and the per-process fallback when Redis is unreachable. Node runs each call to the end
 * without interleaving, so a take is atomic without locks.
 */
export class MemoryStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  readonly #buckets = new Map<string, Entry>();
  readonly #slots = new Map<string, Set<string>>();
  readonly #clock: Clock;
  readonly #sweeper: NodeJS.Timeout;

  constructor(clock: Clock = Date.now) {
    this.#clock = clock;
    // Full buckets are dropped so idle tenants and clients cost no memory.
    this.#sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  /** Number of buckets held (tests and the sweep). */
  get size(): number {
    return this.#buckets.size;
  }

  sweep(): void {
    const now = this.#clock();
    for (const [key, entry] of this.#buckets) if (entry.fullAt <= now) this.#buckets.delete(key);
  }

  async take(policies: BucketPolicy[], cost: number): Promise<TakeOutcome> {
    return this.takeNow(policies, cost);
  }

  /** The synchronous take, for callers that want no await in between. */
  takeNow(policies: BucketPolicy[], cost: number): TakeOutcome {
    const now = this.#clock();
    const outcome = takeFrom(policies.map((p) => this.#buckets.get(p.key)), policies, cost, now);
    outcome.writes?.forEach((state, i) => {
      const policy = policies[i]!;
      this.#buckets.set(policy.key, { ...state, fullAt: now + idleTtlMs(state.ticks, policy) });
    });
    return { allowed: outcome.allowed, views: outcome.views };
  }

  async acquireSlot(key: string, member: string, max: number): Promise<SlotOutcome> {
    const set = this.#slots.get(key) ?? new Set<string>();
    if (set.size >= max) return { acquired: false, inUse: set.size };
    set.add(member);
    this.#slots.set(key, set);
    return { acquired: true, inUse: set.size };
  }

  async releaseSlot(key: string, member: string): Promise<void> {
    const set = this.#slots.get(key);
    if (!set) return;
    set.delete(member);
    if (set.size === 0) this.#slots.delete(key);
  }

  async renewSlots(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
  }
}
