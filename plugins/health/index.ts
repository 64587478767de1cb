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

const liveSchema = Joi.object({
  status: Joi.string().valid('ok').required(),
  version: Joi.string().required(),
  uptime_seconds: Joi.number().integer().min(0).required(),
}).label('Liveness');

const failure = Joi.string().valid('unreachable', 'timeout');
const readySchema = Joi.object({
  status: Joi.string().valid('ready').required(),
  checks: Joi.object({
    database: Joi.object({ status: Joi.string().valid('ok', 'failed').required(), engine: Joi.string().valid('sqlite', 'mysql').required(), reason: failure }).required(),
    migrations: Joi.object({
      status: Joi.string().valid('current', 'pending', 'ahead', 'unknown').required(),
      applied: Joi.number().integer().min(0),
      pending: Joi.array().items(Joi.string()),
      unknown: Joi.array().items(Joi.string()),
    }).required(),
    redis: Joi.object({ status: Joi.string().valid('ok', 'failed', 'not_configured').required(), reason: failure }).required(),
    loops: Joi.object({
      status: Joi.string().valid('ok', 'lagging').required(),
      max_lag_ms: Joi.number().integer().min(0).required(),
      services: Joi.array().items(Joi.object({
        name: Joi.string().required(),
        loops: Joi.number().integer().min(0).required(),
        status: Joi.string().valid('ok', 'lagging').required(),
        lag_ms: Joi.number().integer().min(0).required(),
        last_tick_at: Joi.string().isoDate().allow(null).required(),
      }).label('LoopService')).required(),
    }).required(),
  }).required(),
}).label('Readiness');

const probe = { auth: false as const, tags: ['api', 'health'], plugins: { rampart: { rateLimit: false as const } }, validate: { query: Joi.object({}) } };

/**
 * `GET /api/health` (the spec's endpoint: 200 when the database answers, else 503), and
 * the probes for service managers and load balancers: `/api/health/live` (the process
 * answers) and `/api/health/ready` (it can do its work). No auth, no rate limit.
 */
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
    server.route({
      method: 'GET',
      path: '/api/health/live',
      options: {
        ...probe,
        description: 'Liveness',
        notes: 'Answers 200 as long as the process answers HTTP at all; it checks nothing else, so a restart is the right answer only when this fails. Needs no token and is exempt from rate limits.',
        response: { status: { 200: dataOf(liveSchema, 'LivenessResponse') } },
      },
      handler: () => ({ data: { status: 'ok', version: ctx.version, uptime_seconds: Math.floor((Date.now() - ctx.startedAt) / 1000) } }),
    });
    server.route({
      method: 'GET',
      path: '/api/health/ready',
      options: {
        ...probe,
        plugins: { rampart: { rateLimit: false as const, errors: [503] } },
        description: 'Readiness',
        notes: 'Answers 200 when this process can do its work: the database answers, no migration this version knows is pending (a database migrated by a newer version is `ahead` and still ready), Redis answers when configured, and no background loop of its roles is stuck or late beyond `health.maxLoopLagMs`. Otherwise 503 `service_unavailable` with the same `checks` in the error body. Failures are named (`unreachable`, `timeout`), never quoted; the cause is logged. Needs no token and is exempt from rate limits.',
        response: { status: { 200: dataOf(readySchema, 'ReadinessResponse') } },
      },
      async handler() {
        const { ready, checks } = await ctx.services.readiness.check();
        if (!ready) {
          const failed = Object.entries(checks).filter(([, c]) => !['ok', 'current', 'ahead', 'not_configured'].includes(c.status)).map(([name]) => name);
          throw new ServiceUnavailableError(`Not ready: ${failed.join(', ')}.`, { checks });
        }
        return { data: { status: 'ready', checks } };
      },
    });
  },
};
