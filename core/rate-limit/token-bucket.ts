/**
 * Token-bucket arithmetic shared by the memory store and (line for line) the Redis Lua
 * script. "N per minute with burst B" read as most do (Go's x/time/rate, AWS API
 * Gateway): a bucket holds at most `capacity` tokens, starts
 * full, gains `perMinute / 60` tokens per second continuously, and a request costs one.
 *
 * Tokens are counted in integer ticks, TICKS_PER_TOKEN per token, so a bucket gains
 * exactly `perMinute` ticks per millisecond: every sum is an exact integer (in JS and
 * in Lua doubles alike) and retry times computed from it are honest to the millisecond.
 */
export const TICKS_PER_TOKEN = 60_000;

/** What a bucket is: its name in the rate-limit headers, its size and its refill rate. */
export interface BucketPolicy {
  /** Store key (tenant, endpoint, client...), without the store's prefix. */
  key: string;
  /** Policy name shown in RateLimit-Policy, e.g. `standard` or `login`. */
  name: string;
  capacity: number;
  perMinute: number;
}

export interface BucketState {
  ticks: number;
  /** Epoch ms of the last write. */
  at: number;
}

/** One bucket after a take (or a peek): enough to write every header. */
export interface BucketView {
  policy: BucketPolicy;
  ticks: number;
  /** The store's clock when it decided, epoch ms. */
  now: number;
}

export function capacityTicks(policy: BucketPolicy): number {
  return policy.capacity * TICKS_PER_TOKEN;
}

/** Ticks held at `now`: a missing bucket is full; time never runs backwards. */
export function refill(state: BucketState | undefined, policy: BucketPolicy, now: number): number {
  const cap = capacityTicks(policy);
  if (!state) return cap;
  const elapsed = Math.max(0, now - state.at);
  return Math.min(cap, state.ticks + elapsed * policy.perMinute);
}

/** Whole tokens left (X-RateLimit-Remaining, RateLimit `r`). */
export function remaining(view: BucketView): number {
  return Math.floor(view.ticks / TICKS_PER_TOKEN);
}

/** Milliseconds until the bucket holds `tokens` whole tokens; 0 when it already does. */
export function msUntil(view: BucketView, tokens: number): number {
  const missing = tokens * TICKS_PER_TOKEN - view.ticks;
  return missing <= 0 ? 0 : Math.ceil(missing / view.policy.perMinute);
}

/** Milliseconds until the bucket is full again (X-RateLimit-Reset). */
export function msUntilFull(view: BucketView): number {
  return msUntil(view, view.policy.capacity);
}

/** Milliseconds until one more whole token exists (RateLimit `t`, Retry-After); 0 when full. */
export function msUntilNextToken(view: BucketView): number {
  const whole = remaining(view);
  return whole >= view.policy.capacity ? 0 : msUntil(view, whole + 1);
}

/** How long a bucket may lie idle before it is full anyway and can be forgotten. */
export function idleTtlMs(ticks: number, policy: BucketPolicy): number {
  return Math.ceil((capacityTicks(policy) - ticks) / policy.perMinute) + 1000;
}

export interface TakeOutcome {
  allowed: boolean;
  views: BucketView[];
}

/**
 * All-or-nothing take of `cost` tokens from every bucket (cost 0 is a peek). Pure: it
 * returns the new states to write (only when allowed and cost > 0) instead of writing.
 */
export function takeFrom(
  states: Array<BucketState | undefined>,
  policies: BucketPolicy[],
  cost: number,
  now: number,
): TakeOutcome & { writes: BucketState[] | null } {
  const ticks = policies.map((policy, i) => refill(states[i], policy, now));
  const allowed = ticks.every((t) => t >= cost * TICKS_PER_TOKEN);
  let writes: BucketState[] | null = null;
  if (allowed && cost > 0) {
    writes = ticks.map((t, i) => ({ ticks: t - cost * TICKS_PER_TOKEN, at: Math.max(now, states[i]?.at ?? now) }));
    writes.forEach((w, i) => (ticks[i] = w.ticks));
  }
  return { allowed, views: policies.map((policy, i) => ({ policy, ticks: ticks[i]!, now })), writes };
}
