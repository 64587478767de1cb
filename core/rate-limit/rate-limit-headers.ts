import { msUntilFull, msUntilNextToken, remaining, TICKS_PER_TOKEN, type BucketView } from './token-bucket.ts';

/**
 * Response headers for one decision. X-RateLimit-* describe the binding bucket (the one
 * that refused, else the one with the fewest tokens left):
 *   X-RateLimit-Limit     bucket size (burst): the most requests that can be made at once
 *   X-RateLimit-Remaining whole tokens left now
 *   X-RateLimit-Reset     Unix seconds when the bucket is full again (Remaining = Limit)
 * IETF (draft-ietf-httpapi-ratelimit-headers -08+) list every bucket that applied:
 *   RateLimit-Policy: "standard";q=100;w=60;burst=20, "scan-create";q=10;w=60
 *   RateLimit:        "standard";r=19;t=1, "scan-create";r=9;t=6
 * with q/w the refill rate, burst the bucket size when it differs from q, r = Remaining
 * and t = seconds until one more token exists (0 when full; equals Retry-After on 429).
 */
export function bindingView(views: BucketView[], denied: boolean): BucketView {
  if (denied) {
    const empty = views.filter((v) => v.ticks < TICKS_PER_TOKEN);
    return empty.reduce((a, b) => (msUntilNextToken(b) >= msUntilNextToken(a) ? b : a));
  }
  return views.reduce((a, b) => (remaining(b) <= remaining(a) ? b : a));
}

/** Whole seconds a refused client must wait: after that long the binding bucket holds a token. */
export function retryAfterSeconds(views: BucketView[]): number {
  return Math.max(1, Math.ceil(msUntilNextToken(bindingView(views, true)) / 1000));
}

const sfString = (name: string) => `"${name.replace(/["\\]/g, '')}"`;

export function rateLimitHeaders(views: BucketView[], denied: boolean): Record<string, string> {
  const binding = bindingView(views, denied);
  const policy = views.map(({ policy: p }) => `${sfString(p.name)};q=${p.perMinute};w=60${p.capacity !== p.perMinute ? `;burst=${p.capacity}` : ''}`);
  const state = views.map((v) => `${sfString(v.policy.name)};r=${remaining(v)};t=${Math.ceil(msUntilNextToken(v) / 1000)}`);
  return {
    'x-ratelimit-limit': String(binding.policy.capacity),
    'x-ratelimit-remaining': String(remaining(binding)),
    'x-ratelimit-reset': String(Math.ceil((binding.now + msUntilFull(binding)) / 1000)),
    'ratelimit-policy': policy.join(', '),
    ratelimit: state.join(', '),
  };
}

/** Headers of a 429 for a full set of concurrent stream connections. */
export function streamSlotHeaders(limit: number, inUse: number, retryAfter: number, now: number): Record<string, string> {
  const left = Math.max(0, limit - inUse);
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(left),
    'x-ratelimit-reset': String(Math.ceil(now / 1000) + retryAfter),
    'ratelimit-policy': `"streams";q=${limit};qu="concurrent-requests"`,
    ratelimit: `"streams";r=${left};t=${retryAfter}`,
  };
}
