import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import { rateLimitHeaders, streamSlotHeaders } from '../rate-limit/rate-limit-headers.ts';
import type { Payer } from '../rate-limit/rate-limit-policies.ts';
import { BucketsExhaustedError, StreamSlotsExhaustedError, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import type { BucketView } from '../rate-limit/token-bucket.ts';
import type { Caller } from './auth-scheme.ts';
import { mayBeNotModified } from './conditional-get.ts';
import { routeRateLimit, type EndpointRateLimit } from './rate-limit-settings.ts';

interface RequestRate {
  /** A conditional GET: charged in onPreHandler unless it ends in 304 first. */
  deferred: boolean;
  views: BucketView[] | null;
  denied: boolean;
}

const states = new WeakMap<Request, RequestRate>();

/**
 * What the rate limiter offers the steps that charge outside its own extension points,
 * via `server.plugins`: the auth scheme (core/http/auth-scheme.ts) and the conditional
 * GET (core/http/conditional-get.ts).
 */
export interface RateLimitExposed {
  /**
   * Charges a request whose authentication failed to its client address (and the route's
   * bucket kept per address); throws the 429 once that is empty. The scheme calls it
   * before it answers 401, so bad or missing tokens cannot be sent at full speed.
   */
  chargeFailedAuthentication(request: Request, options?: { evenUnlimited?: boolean }): Promise<void>;
  /**
   * Charges a conditional GET whose charge was deferred, once the conditional step has
   * decided it is not a 304 (throws the 429); nothing for any other request. Returns a
   * promise only when the store must be asked asynchronously (Redis).
   */
  chargeDeferred(request: Request): void | Promise<void>;
}

declare module '@hapi/hapi' {
  interface PluginProperties {
    'rampart-rate-limit'?: RateLimitExposed;
  }
}

function payerOf(request: Request): Payer {
  const caller = request.auth?.credentials as Partial<Caller> | null | undefined;
  if (caller?.tenantId && caller.tier) return { tenantId: caller.tenantId, tier: caller.tier };
  return { address: request.info.remoteAddress };
}

function endpointOf(request: Request): EndpointRateLimit | undefined {
  return routeRateLimit(request.route) || undefined;
}

/** The account an unauthenticated request names (login: the email), when the route keys by it. */
function accountOf(request: Request, payer: Payer, limit: EndpointRateLimit | undefined): string | undefined {
  if (!limit?.accountField || 'tenantId' in payer) return undefined;
  const value = (request.payload as Record<string, unknown> | null | undefined)?.[limit.accountField];
  return typeof value === 'string' && value.length <= 320 ? value : undefined;
}

/**
 * The rate limiter at the HTTP edge. Every request except `rateLimit: false` routes pays
 * one token after authentication (tenant tier bucket, or the client-address bucket
 * without a token) plus one from the route's own bucket, before validation and the
 * handler; an empty bucket answers 429. A request whose token is missing or invalid pays
 * the client-address bucket during authentication, before its 401 (429 once empty). A
 * conditional GET waits until the conditional plugin has answered 304 (free) or not
 * (charged then). Responses that never reached a charge (403, 404, 304) show the
 * buckets' current state without taking from them.
 * Headers go on every response, errors included (set before the error edge rebuilds it).
 */
export function rateLimitPlugin(limiter: RateLimiter): Plugin<void> {
  return {
    name: 'rampart-rate-limit',
    register(server) {
      if (!limiter.enabled) return;

      const refused = (state: RequestRate, err: unknown): never => {
        if (err instanceof BucketsExhaustedError) Object.assign(state, { views: err.views, denied: true });
        throw err;
      };
      // Synchronous with the memory store (no promise on the request path); Redis answers later.
      const charge = (request: Request, state: RequestRate): void | Promise<void> => {
        const payer = payerOf(request);
        const limit = endpointOf(request);
        const account = accountOf(request, payer, limit);
        let outcome;
        try {
          outcome = limiter.chargeNow(payer, limit, account);
        } catch (err) {
          refused(state, err);
        }
        if (outcome) {
          state.views = outcome.views;
          return;
        }
        return limiter.charge(payer, limit, account).then(
          (later) => void (state.views = later.views),
          (err: unknown) => refused(state, err),
        );
      };

      const exposed: RateLimitExposed = {
        async chargeFailedAuthentication(request, options) {
          // evenUnlimited: a route exempt from rate limits (the agents' own) still charges a refused token.
          if ((routeRateLimit(request.route) === false && !options?.evenUnlimited) || states.has(request)) return;
          const state: RequestRate = { deferred: false, views: null, denied: false };
          states.set(request, state);
          await charge(request, state);
        },
        chargeDeferred(request) {
          const state = states.get(request);
          if (!state?.deferred) return;
          state.deferred = false;
          return charge(request, state);
        },
      };
      server.expose(exposed);

      server.ext('onPostAuth', (request, h) => {
        // Already charged: a failed authentication on a route whose auth mode lets it through.
        if (routeRateLimit(request.route) === false || states.has(request)) return h.continue;
        const state: RequestRate = { deferred: mayBeNotModified(request), views: null, denied: false };
        states.set(request, state);
        const pending = state.deferred ? undefined : charge(request, state);
        return pending ? pending.then(() => h.continue) : h.continue;
      });

      const setHeaders = (response: ResponseObject | Boom, headers: Record<string, string>) => {
        for (const [name, value] of Object.entries(headers)) {
          if ('isBoom' in response && response.isBoom) response.output.headers[name] = value;
          else (response as ResponseObject).header(name, value);
        }
      };

      server.ext(
        'onPreResponse',
        (request, h) => {
          const response = request.response as ResponseObject | Boom | null;
          if (!response || routeRateLimit(request.route) === false) return h.continue;
          if (response instanceof StreamSlotsExhaustedError) {
            setHeaders(response, streamSlotHeaders(response.limit, response.inUse, Number(response.extra.retry_after), Date.now()));
            return h.continue;
          }
          const state = states.get(request);
          const denied = state?.denied ?? false;
          if (state?.views) {
            setHeaders(response, rateLimitHeaders(state.views, denied));
            return h.continue;
          }
          // Never charged (403, 404, 304): the buckets as they are.
          const payer = payerOf(request);
          const limit = endpointOf(request);
          const account = accountOf(request, payer, limit);
          let now;
          try {
            now = limiter.peekNow(payer, limit, account);
          } catch {
            return h.continue;
          }
          if (now) {
            setHeaders(response, rateLimitHeaders(now.views, denied));
            return h.continue;
          }
          return limiter.peek(payer, limit, account).then(
            (outcome) => (setHeaders(response, rateLimitHeaders(outcome.views, denied)), h.continue),
            () => h.continue,
          );
        },
        { before: ['rampart-error-response'] },
      );
    },
  };
}
