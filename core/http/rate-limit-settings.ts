import type { RequestRoute, Server } from '@hapi/hapi';
import Joi from 'joi';
import type { RampartRouteSettings } from './auth-scheme.ts';
import type { LastModifiedSource } from './conditional-get.ts';

/**
 * A per-endpoint limit, declared by the route itself, on top of the caller's tier budget
 * (a request must find a token in both buckets and takes one from each):
 *
 * ```ts
 * options: { plugins: { rampart: { rateLimit: endpointLimit('scan-create', 10) } } }
 * ```
 *
 * The bucket holds `burst` tokens (default: `perMinute`, so a full minute's allowance
 * may be spent at once) and refills at `perMinute / 60` per second. It is kept per
 * tenant; on routes without authentication (`auth: false`) per client address, plus the
 * account named by the payload field `accountField` when given (login: `email`). With an
 * account, `perAddress` adds a bucket per client address across all accounts (named
 * `<key>-address`), so one address cannot spray many accounts at the per-account rate.
 * `rateLimit: false` (see RATE_LIMIT_EXEMPT) exempts a route from every limit.
 */
export interface EndpointRateLimit {
  /** Stable name, unique per limit: the bucket's key and its name in RateLimit-Policy. */
  key: string;
  perMinute: number;
  burst?: number;
  accountField?: string;
  /** Per minute (and burst) per client address across accounts; needs `accountField`. */
  perAddress?: number;
}

/** Everything a route may declare under `options.plugins.rampart`. */
export interface RampartRoutePlugins extends RampartRouteSettings {
  rateLimit?: EndpointRateLimit | false;
  /** Enables Last-Modified / If-Modified-Since (304 costs no token): core/http/conditional-get.ts. */
  lastModified?: LastModifiedSource;
  /** Extra error statuses to document in OpenAPI (core/http/openapi.ts). */
  errors?: number[];
}

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    rampart?: RampartRoutePlugins;
  }
}

/** `rateLimit: endpointLimit('findings-export', 5)`: a typed per-endpoint limit. */
export function endpointLimit(key: string, perMinute: number, options: { burst?: number; accountField?: string; perAddress?: number } = {}): EndpointRateLimit {
  return { key, perMinute, ...options };
}

/** For `rateLimit`: no token, no 429, no headers (GET /api/health). */
export const RATE_LIMIT_EXEMPT = false as const;

/** Names the tier and client buckets use; an endpoint limit may not take them. */
export const RESERVED_LIMIT_KEYS = ['standard', 'premium', 'enterprise', 'anonymous', 'streams'];

const declaration = Joi.alternatives(
  Joi.boolean().valid(false),
  Joi.object({
    key: Joi.string().pattern(/^[a-z0-9][a-z0-9_-]{0,63}$/).invalid(...RESERVED_LIMIT_KEYS).required(),
    perMinute: Joi.number().integer().min(1).max(1_000_000).required(),
    burst: Joi.number().integer().min(1).max(1_000_000),
    accountField: Joi.string().min(1).max(64),
    perAddress: Joi.number().integer().min(1).max(1_000_000),
  }).with('perAddress', 'accountField'),
);

/** The per-address bucket's key, beside the limit's own. */
export const addressLimitKey = (key: string) => `${key}-address`;

export function routeRateLimit(route: RequestRoute): EndpointRateLimit | false | undefined {
  return route.settings.plugins?.rampart?.rateLimit;
}

/**
 * Checked once when the server is built: a malformed declaration, or one key declared
 * with different numbers on two routes, stops start-up with the route named.
 */
export function assertRouteRateLimits(server: Server): void {
  const seen = new Map<string, { route: string; limit: EndpointRateLimit }>();
  for (const route of server.table()) {
    const limit = routeRateLimit(route);
    if (limit === undefined) continue;
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const { error } = declaration.validate(limit, { convert: false });
    if (error) throw new Error(`Invalid plugins.rampart.rateLimit on ${name}: ${error.message}`);
    if (limit === false) continue;
    const declared: EndpointRateLimit[] = [limit];
    if (limit.perAddress) declared.push({ key: addressLimitKey(limit.key), perMinute: limit.perAddress });
    for (const one of declared) {
      const before = seen.get(one.key);
      if (before && (before.limit.perMinute !== one.perMinute || before.limit.burst !== one.burst)) {
        throw new Error(`Rate-limit key "${one.key}" is declared with different numbers on ${before.route} and ${name}.`);
      }
      seen.set(one.key, { route: name, limit: one });
    }
  }
}
