import Hapi, { type Plugin } from '@hapi/hapi';
import Inert from '@hapi/inert';
import type { AppContext } from './app-context.ts';
import { bearerAuthPlugin } from './http/auth-scheme.ts';
import { answerClientErrors } from './http/client-error.ts';
import { conditionalGetPlugin } from './http/conditional-get.ts';
import { errorResponsePlugin } from './http/error-response.ts';
import { formBodiesPlugin } from './http/form-bodies.ts';
import { bodyDepthPlugin } from './http/body-depth.ts';
import { rateLimitPlugin } from './http/rate-limit-plugin.ts';
import { assertRouteRateLimits } from './http/rate-limit-settings.ts';
import { requestLoggerPlugin } from './http/request-logger.ts';
import { validationFailAction } from './http/validation.ts';

/**
 * Builds the hapi server: edge plugins first (request ids and logging, the error
 * body, bearer auth), then one plugin per API area. Not started: callers use
 * `server.inject` (tests) or `server.start()` (core/app.ts).
 */
export async function createServer(ctx: AppContext, routes: ReadonlyArray<Plugin<AppContext>>): Promise<Hapi.Server> {
  const { config } = ctx;
  const server = Hapi.server({
    host: config.server.host,
    port: config.server.port,
    debug: false,
    router: { stripTrailingSlash: false },
    routes: {
      validate: {
        failAction: validationFailAction,
        options: { abortEarly: false },
      },
      payload: { maxBytes: config.http.maxPayloadBytes },
      // Response schemas document every route; tests validate every response against them.
      response: { sample: config.http.validateResponses ? 100 : 0, failAction: 'error' },
    },
  });
  answerClientErrors(server, ctx.logger);
  await server.register([
    { plugin: requestLoggerPlugin(ctx.logger) },
    // Conditional GET and rate limits before the error edge: their headers must be on
    // an error response before it is rebuilt into the error body.
    { plugin: conditionalGetPlugin },
    { plugin: rateLimitPlugin(ctx.rateLimiter) },
    { plugin: errorResponsePlugin(ctx.logger) },
    { plugin: bearerAuthPlugin(ctx.db, ctx.logger) },
    { plugin: formBodiesPlugin },
    { plugin: bodyDepthPlugin },
    { plugin: Inert },
  ]);
  for (const plugin of routes) await server.register({ plugin, options: ctx });
  assertRouteRateLimits(server);
  return server;
}
