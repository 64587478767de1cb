import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf, type Caller } from '../../core/http/auth-scheme.ts';
import { idPattern } from '../../core/ids.ts';
import { SseConnection } from './sse-connection.ts';
import { parseKinds, STREAM_EVENT_KINDS } from './stream-kinds.ts';

interface StreamQuery {
  events?: string;
  asset_id?: string;
  token?: string;
}

const kindsParam = Joi.string()
  .max(2000)
  .custom((value: string, helpers) => {
    try {
      parseKinds(value);
      return value;
    } catch (err) {
      return helpers.message({ custom: `"events" ${(err as Error).message}` });
    }
  })
  .description(`Comma-separated kinds: ${STREAM_EVENT_KINDS.join(', ')}.`);

/** Event ids are positive integers; anything else (or none) means "no replay". */
function lastEventIdOf(request: Request): number | null {
  const raw = request.headers['last-event-id'];
  return typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/**
 * Opens one connection: registers it with the process's stream hub, replays what the
 * client missed, and returns the response. Everything a connection holds is released
 * in `onClose`; a per-tier connection slot belongs here too (acquire before, release
 * in onClose).
 */
async function openStream(ctx: AppContext, caller: Caller, query: StreamQuery, lastEventId: number | null, onClose: () => void): Promise<SseConnection> {
  const { config, streamHub } = ctx;
  await streamHub.start();
  const kinds = parseKinds(query.events);
  const assetId = query.asset_id ?? null;
  let unsubscribe = (): void => {};
  const connection = new SseConnection({
    heartbeatMs: config.stream.heartbeatMs,
    retryMs: config.stream.retryMs,
    maxBufferedBytes: config.stream.maxBufferedBytes,
    afterId: lastEventId ?? 0,
    onClose: () => {
      unsubscribe();
      onClose();
    },
  });
  const sub = streamHub.subscribe({ tenantId: caller.tenantId, kinds, assetId, deliver: (e) => connection.deliver(e), close: () => connection.close() });
  unsubscribe = sub.unsubscribe;
  try {
    const replayed = lastEventId === null
      ? []
      : await ctx.services.stream.replay({
          tenantId: caller.tenantId,
          afterId: lastEventId,
          upToId: sub.position,
          since: Date.now() - config.stream.replayWindowMs,
          kinds: kinds ? [...kinds] : null,
          assetId,
          limit: config.stream.replayMaxEvents,
        });
    connection.replayDone(replayed);
  } catch (err) {
    connection.close();
    throw err;
  }
  return connection;
}

export function streamRoute(ctx: AppContext): ServerRoute {
  return {
    method: 'GET',
    path: '/api/events/stream',
    options: {
      auth: { access: { scope: ['events:read'] } },
      tags: ['api', 'events'],
      description: 'Server-Sent Events stream of the tenant\'s events',
      notes: [
        'Token in `Authorization: Bearer` or in `?token=` (for EventSource clients, which cannot set headers; the query string is never logged).',
        `Concurrent connections per tenant: Standard ${ctx.config.rateLimit.tiers.standard.streams}, Premium ${ctx.config.rateLimit.tiers.premium.streams}, Enterprise ${ctx.config.rateLimit.tiers.enterprise.streams}; one more answers 429 rate_limited. A closed connection frees its slot at once. Opening a connection costs one rate-limit token; messages cost nothing.`,
        `Messages carry \`event:\`, \`id:\` and \`data:\` (JSON). \`retry: ${ctx.config.stream.retryMs}\` is sent once on connect; a \`heartbeat\` event ({timestamp}) every ${ctx.config.stream.heartbeatMs / 1000} s, whatever the \`events\` filter.`,
        `\`Last-Event-ID\` replays the events after that id from the last ${ctx.config.stream.replayWindowMs / 60000} minutes, then continues live without gap or duplicate. A malformed Last-Event-ID is ignored (no replay).`,
        '`webhook.test` is not streamed. A client that stops reading is disconnected once its unsent output is too large; it can reconnect with Last-Event-ID.',
      ],
      plugins: { rampart: { queryToken: true } },
      validate: {
        query: Joi.object({
          events: kindsParam,
          asset_id: Joi.string().pattern(idPattern('ast')).description('Only events about this asset.'),
          token: Joi.string().max(512).description('API token, for clients that cannot send the Authorization header.'),
        }),
      },
      // A stream cannot be validated against a schema; `true` documents "any body".
      response: { status: { 200: true } },
    },
    handler: async (request, h: ResponseToolkit) => {
      const caller = callerOf(request);
      // One of the tenant's concurrent connections (429 when all are in use), freed by onClose
      // whatever ends the connection: client close or disappearance, overflow, server stop.
      const release = await ctx.rateLimiter.acquireStreamSlot(caller);
      const connection = await openStream(ctx, caller, request.query as StreamQuery, lastEventIdOf(request), release).catch((err: unknown) => {
        release();
        throw err;
      });
      request.events.once('disconnect', () => connection.close());
      // A client that left while the replay was read has already fired 'disconnect'.
      if (request.raw.req.socket?.destroyed) connection.close();
      request.raw.res.once('close', () => connection.close());
      return h
        .response(connection.stream)
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        // Without identity, hapi gzips the body for gzip-accepting clients and holds events back.
        .header('content-encoding', 'identity')
        .header('x-accel-buffering', 'no');
    },
  };
}
