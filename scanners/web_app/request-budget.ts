import type { CheckContext } from '../../core/plugin-api/index.ts';

/** Requests one check sends beyond its crawl, unless the admin sets `max_requests`. */
export const DEFAULT_MAX_REQUESTS = 400;

/**
 * The bound on the requests a probing check sends (sensitive names, injection payloads).
 * When it runs out the check stops probing and says so in a warning, which the scan
 * detail shows with the check's outcome: a budget never ends a check silently.
 */
export class RequestBudget {
  readonly limit: number;
  #used = 0;
  #refused = 0;

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  static of(ctx: CheckContext): RequestBudget {
    const n = Number(ctx.options.max_requests ?? DEFAULT_MAX_REQUESTS);
    return new RequestBudget(Number.isFinite(n) ? n : DEFAULT_MAX_REQUESTS);
  }

  get used(): number {
    return this.#used;
  }

  /** Takes `n` requests from the budget; false (and counted as refused) when they do not fit. */
  take(n = 1): boolean {
    if (this.#used + n > this.limit) {
      this.#refused += n;
      return false;
    }
    this.#used += n;
    return true;
  }

  get exhausted(): boolean {
    return this.#refused > 0;
  }

  /** Requests asked for after the budget ran out. */
  get refused(): number {
    return this.#refused;
  }

  /** Writes the warning when the budget ran out (`lost`: what was not done, e.g. `12 probe(s) not sent`). */
  report(ctx: CheckContext, lost: string): void {
    if (this.#refused) ctx.log('WARN', `request budget of ${this.limit} used up: ${lost} (raise max_requests to cover them)`);
  }
}
