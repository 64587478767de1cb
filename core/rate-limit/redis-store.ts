import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { createClient } from 'redis';
import type { RateLimitStore, SlotOutcome } from './rate-limit-store.ts';
import { ACQUIRE_SLOT_SCRIPT, RENEW_SLOTS_SCRIPT, TAKE_SCRIPT } from './redis-scripts.ts';
import { capacityTicks, type BucketPolicy, type TakeOutcome } from './token-bucket.ts';

// The redis client costs about 0.6 s of CPU to load; only processes configured with Redis pay it.
const requireLazily = createRequire(import.meta.url);

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  slotTtlMs: number;
  /** Tests pass a clock; production leaves it out and the scripts use Redis TIME. */
  clock?: () => number;
  /** Connection lost or refused (called on every failed reconnect attempt). */
  onError?: (err: Error) => void;
  /** Connection (re-)established. */
  onReady?: () => void;
}

type Client = ReturnType<typeof createClient>;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * Buckets and slots in Redis, shared by every Rampart process pointed at it. Each
 * operation is one Lua script (atomic). Commands fail fast while disconnected (no
 * offline queue, a short timeout) so the caller can apply its failure mode at once
 * instead of stalling requests; the client keeps reconnecting in the background.
 */
export class RedisStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  readonly #client: Client;
  readonly #options: RedisStoreOptions;
  readonly #connecting: Promise<void>;

  constructor(options: RedisStoreOptions) {
    this.#options = options;
    const { createClient: connect } = requireLazily('redis') as { createClient: typeof createClient };
    this.#client = connect({
      url: options.url,
      disableOfflineQueue: true,
      commandOptions: { timeout: options.commandTimeoutMs },
      socket: {
        connectTimeout: options.connectTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000),
      },
    });
    this.#client.on('error', (err: Error) => options.onError?.(err));
    this.#client.on('ready', () => options.onReady?.());
    this.#connecting = this.#client.connect().then(
      () => undefined,
      () => undefined,
    );
  }

  /** Resolves when connected, or after connectTimeoutMs if Redis does not answer (it keeps trying). */
  async ready(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#options.connectTimeoutMs)));
    await Promise.race([this.#connecting, timeout]);
    clearTimeout(timer);
    return this.#client.isReady;
  }

  #now(): string {
    return String(this.#options.clock ? this.#options.clock() : -1);
  }

  #key(key: string): string {
    return this.#options.keyPrefix + key;
  }

  async #run(script: string, keys: string[], args: string[]): Promise<number[]> {
    try {
      return (await this.#client.evalSha(sha1(script), { keys, arguments: args })) as number[];
    } catch (err) {
      if (!/NOSCRIPT/.test((err as Error).message)) throw err;
      return (await this.#client.eval(script, { keys, arguments: args })) as number[];
    }
  }

  async take(policies: BucketPolicy[], cost: number): Promise<TakeOutcome> {
    const args = [this.#now(), String(cost)];
    for (const p of policies) args.push(String(capacityTicks(p)), String(p.perMinute));
    const [allowed, now, ...ticks] = await this.#run(TAKE_SCRIPT, policies.map((p) => this.#key(p.key)), args);
    return { allowed: allowed === 1, views: policies.map((policy, i) => ({ policy, ticks: Number(ticks[i]), now: Number(now) })) };
  }

  async acquireSlot(key: string, member: string, max: number): Promise<SlotOutcome> {
    const [acquired, inUse] = await this.#run(ACQUIRE_SLOT_SCRIPT, [this.#key(key)], [this.#now(), String(max), String(this.#options.slotTtlMs), member]);
    return { acquired: acquired === 1, inUse: Number(inUse) };
  }

  async releaseSlot(key: string, member: string): Promise<void> {
    await this.#client.zRem(this.#key(key), member);
  }

  async renewSlots(slots: Array<{ key: string; member: string }>): Promise<void> {
    if (!slots.length) return;
    await this.#run(
      RENEW_SLOTS_SCRIPT,
      slots.map((s) => this.#key(s.key)),
      [this.#now(), String(this.#options.slotTtlMs), ...slots.map((s) => s.member)],
    );
  }

  async close(): Promise<void> {
    // destroy, not quit: quit would wait for a server that may be gone.
    this.#client.destroy();
    await this.#connecting;
  }
}
