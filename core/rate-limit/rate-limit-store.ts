import type { BucketPolicy, TakeOutcome } from './token-bucket.ts';

/** Result of asking for a concurrent slot (event-stream connections). */
export interface SlotOutcome {
  acquired: boolean;
  /** Slots in use after the call (including ours when acquired). */
  inUse: number;
}

/**
 * Where bucket states and stream slots live: one process's memory, or Redis shared by
 * every process. Every method is atomic on its own: concurrent takes never lose an
 * update and never overspend.
 */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Takes `cost` tokens from every bucket, or from none when one lacks them. Cost 0 peeks. */
  take(policies: BucketPolicy[], cost: number): Promise<TakeOutcome>;
  /** `take` decided without waiting, for stores that hold the buckets in this process (memory). */
  takeNow?(policies: BucketPolicy[], cost: number): TakeOutcome;
  /** Adds `member` to the slot set `key` unless it already holds `max` members. */
  acquireSlot(key: string, member: string, max: number): Promise<SlotOutcome>;
  releaseSlot(key: string, member: string): Promise<void>;
  /** Keeps live slots from expiring (Redis); a no-op where slots cannot leak. */
  renewSlots(slots: Array<{ key: string; member: string }>): Promise<void>;
  close(): Promise<void>;
}

/** Milliseconds since the epoch; injected so tests can move time by hand. */
export type Clock = () => number;
