import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin, Request } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { RampartError, UnauthorizedError } from '../../core/errors.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

const metricsOff = () =>
  new RampartError(404, 'metrics_disabled', 'Metrics are off on this server: set a scrape token of 24-256 printable characters in metrics.token (environment variable RAMPART__metrics__token), restart, and scrape /metrics with it as a bearer token. See docs/operations.md, "Metrics (Prometheus)".');

/** The route template a request matched ('unmatched' for 404s of unknown paths), never its raw URL. */
function routeOf(request: Request): string {
  return (request.route.method as string) === '_special' ? 'unmatched' : request.route.path;
}

/**
 * `GET /metrics` (Prometheus text format) for a scraper holding the `metrics.token` of the
 * configuration, a credential of its own: a tenant or admin token is not accepted and a
 * scrape token opens nothing else. Without a configured token the route answers 404
 * `metrics_disabled`, saying it is off and how to turn it on (a bare 404 read like a
 * mistyped URL). Also times every request of this server for the HTTP histogram.
 */
export const metricsPlugin: Plugin<AppContext> = {
  name: 'rampart-metrics',
  register(server, ctx) {
    const expected = ctx.config.metrics.token === null ? null : digest(ctx.config.metrics.token);
    server.events.on('response', (request) => {
      const status = (request.response as { statusCode?: number } | null)?.statusCode ?? 0;
      const route = routeOf(request);
      if (route === '/metrics') return;
      const end = request.info.completed || request.info.responded || Date.now();
      ctx.metrics.httpDuration.observe({ method: request.method.toUpperCase(), route, status: String(status) }, Math.max(0, end - request.info.received) / 1000);
      if (status === 429) ctx.metrics.rateLimitRefusals.inc({ route });
    });

    server.route({
      method: 'GET',
      path: '/metrics',
      options: {
        auth: false,
        tags: ['api', 'metrics'],
        description: 'Prometheus metrics',
        notes: 'Operational figures of this process and of the shared queues, in the Prometheus text exposition format. Needs the scrape token of `metrics.token` as `Authorization: Bearer …`; answers 404 metrics_disabled (saying how to turn it on) while no token is configured. Exempt from rate limits.',
        plugins: { rampart: { rateLimit: false, errors: [401] } },
        validate: { query: Joi.object({}) },
        response: { status: { 200: true } },
      },
      async handler(request, h) {
        if (!expected) throw metricsOff();
        const header = String(request.headers.authorization ?? '');
        const presented = /^Bearer (\S+)$/i.exec(header)?.[1];
        if (!presented || !timingSafeEqual(digest(presented), expected)) throw new UnauthorizedError('Missing or wrong metrics scrape token.');
        const body = await ctx.metrics.scrape();
        return h.response(body).type(ctx.metrics.registry.contentType).header('cache-control', 'no-store');
      },
    });
  },
};
