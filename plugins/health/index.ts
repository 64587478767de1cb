import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { ServiceUnavailableError } from '../../core/errors.ts';
import { dataOf } from '../../core/http/pagination.ts';

const healthSchema = Joi.object({
  status: Joi.string().valid('ok').required(),
  version: Joi.string().required(),
  uptime_seconds: Joi.number().integer().min(0).required(),
  time: Joi.string().isoDate().required(),
  database: Joi.object({ status: Joi.string().valid('ok').required(), engine: Joi.string().valid('sqlite', 'mysql').required() }).required(),
}).label('Health');

/** `GET /api/health`: no auth, no rate limit. 200 when the database answers, else 503. */
export const healthPlugin: Plugin<AppContext> = {
  name: 'rampart-health',
  register(server, ctx) {
    server.route({
      method: 'GET',
      path: '/api/health',
      options: {
        auth: false,
        tags: ['api', 'health'],
        description: 'Service health',
        notes: 'Reports whether the database answers, the version and the uptime. Needs no token and is exempt from rate limits.',
        plugins: { rampart: { rateLimit: false } },
        validate: { query: Joi.object({}) },
        response: { status: { 200: dataOf(healthSchema, 'HealthResponse') } },
      },
      async handler() {
        let engine: string;
        try {
          ({ engine } = await ctx.services.health.database());
        } catch {
          throw new ServiceUnavailableError('The database is not reachable.', { database: 'unreachable' });
        }
        return {
          data: {
            status: 'ok',
            version: ctx.version,
            uptime_seconds: Math.floor((Date.now() - ctx.startedAt) / 1000),
            time: new Date().toISOString(),
            database: { status: 'ok', engine },
          },
        };
      },
    });
  },
};
