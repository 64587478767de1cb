import type { Plugin, Request } from '@hapi/hapi';
import type { Logger } from '../logger.ts';
import { safePath } from '../logger.ts';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Request ids and one access-log line per request. The id is the caller's
 * `X-Request-Id` when it is sane, else hapi's own, and is echoed in the response.
 * The line carries the path without its query string (which may hold `token=`),
 * never headers or bodies.
 */
export function requestLoggerPlugin(logger: Logger): Plugin<void> {
  return {
    name: 'rampart-request-logger',
    register(server) {
      // The access line is built below from fixed fields, none of them secret (the path
      // without its query, ids, status, timing, address), so key-based redaction has
      // nothing to find in it; skipping it roughly quarters the line's cost, paid on
      // every request. Everything else logs through the redacting logger.
      const access = logger.child({}, { redact: [] });
      server.ext('onRequest', (request, h) => {
        const incoming = request.headers['x-request-id'];
        if (typeof incoming === 'string' && INCOMING_ID.test(incoming)) request.info.id = incoming;
        return h.continue;
      });
      server.ext('onPreResponse', (request, h) => {
        const response = request.response as { isBoom?: boolean; header?: (n: string, v: string) => unknown; output?: { headers: Record<string, string> } };
        if (response.isBoom) response.output!.headers['x-request-id'] = request.info.id;
        else response.header?.('x-request-id', request.info.id);
        return h.continue;
      });
      server.events.on('response', (request: Request) => {
        const response = request.response as { statusCode?: number } | null;
        const credentials = request.auth?.credentials as { tenantId?: string } | null;
        access.info(
          {
            req_id: request.info.id,
            method: request.method.toUpperCase(),
            path: safePath(request.path),
            status: response?.statusCode,
            ms: Date.now() - request.info.received,
            tenant: credentials?.tenantId,
            remote: request.info.remoteAddress,
          },
          'request',
        );
      });
    },
  };
}
