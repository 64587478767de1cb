import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import { callerOf } from './auth-scheme.ts';
import { formatHttpDate, isNotModified, lastModifiedSecond, parseHttpDate } from './last-modified.ts';

/**
 * When the data behind a GET last changed, epoch ms; null when there is nothing to go
 * by (e.g. the record does not exist: the handler then answers 404 as usual).
 * Declared per route as `plugins: { rampart: { lastModified } }`.
 */
export type LastModifiedSource = (request: Request) => Promise<number | null>;

/**
 * A tenant collection's list: its change clock as the feature's service reads it
 * (`listChangedAt`), read before the handler reads the rows.
 */
export function collectionLastModified(changedAt: (tenantId: string) => Promise<number | null>): LastModifiedSource {
  // A collection that never changed is empty; epoch 0 still lets clients revalidate it.
  return async (request) => (await changedAt(callerOf(request).tenantId)) ?? 0;
}

const loaded = new WeakMap<Request, unknown>();

/**
 * One record: its `updated_at`. `load` must apply the same tenant filter as the handler.
 * The record read here is kept for the handler (`loadedRecord`), so a route that answers
 * from it reads the record once per request, and its Last-Modified and body are the
 * same version.
 */
export function recordLastModified<T extends { updated_at: string }>(load: (request: Request) => Promise<T | null>): LastModifiedSource {
  return async (request) => {
    const record = await load(request);
    if (!record) return null;
    loaded.set(request, record);
    return Date.parse(record.updated_at);
  };
}

/**
 * The record `recordLastModified` read for this request before the handler, if any
 * (none when the route is not conditional, the method is not a read, or no record was
 * found: the handler then reads, and answers 404, as usual).
 */
export function loadedRecord<T>(request: Request): T | undefined {
  return loaded.get(request) as T | undefined;
}

function sourceOf(request: Request): LastModifiedSource | undefined {
  const source = request.route.settings.plugins?.rampart?.lastModified;
  return typeof source === 'function' ? source : undefined;
}

const isRead = (request: Request) => request.method === 'get' || request.method === 'head';

/** A GET that may end in 304: the rate limiter charges it only once it is known not to. */
export function mayBeNotModified(request: Request): boolean {
  return isRead(request) && sourceOf(request) !== undefined && parseHttpDate(request.headers['if-modified-since'] as string | undefined) !== null;
}

const sentSecond = new WeakMap<Request, number>();

/**
 * Conditional GET for routes that declare `lastModified`: the source is read before the
 * handler (so a change racing the handler's own read can only make Last-Modified older,
 * never newer, than the body), then either 304 with no handler run, or the handler's
 * 200 with Last-Modified added. See core/http/last-modified.ts for the 1-second rule.
 */
export const conditionalGetPlugin: Plugin<void> = {
  name: 'rampart-conditional-get',
  register(server) {
    server.ext('onPreHandler', async (request, h) => {
      const source = sourceOf(request);
      if (!source || !isRead(request)) return h.continue;
      const readAt = Date.now();
      const changed = await source(request);
      const ifModifiedSince = parseHttpDate(request.headers['if-modified-since'] as string | undefined);
      // hapi compares If-Modified-Since with any Last-Modified itself after onPreResponse
      // and would turn our 200 into a 304 against the capped date: decide here, alone.
      delete request.headers['if-modified-since'];
      const second = changed === null ? null : lastModifiedSecond(changed, readAt);
      if (second !== null && ifModifiedSince !== null && isNotModified(ifModifiedSince, changed!, readAt)) {
        return h.response().code(304).header('last-modified', formatHttpDate(second)).takeover();
      }
      // Not a 304: the rate limiter charges now what it held back for a possible 304
      // (core/http/rate-limit-plugin.ts), in this same step; a 429 stops here.
      await request.server.plugins['rampart-rate-limit']?.chargeDeferred(request);
      if (second !== null) sentSecond.set(request, second);
      return h.continue;
    });
    server.ext('onPreResponse', (request, h) => {
      const second = sentSecond.get(request);
      const response = request.response as ResponseObject | Boom;
      if (second !== undefined && !('isBoom' in response && response.isBoom)) {
        const ok = response as ResponseObject;
        if (ok.statusCode === 200) ok.header('last-modified', formatHttpDate(second));
      }
      return h.continue;
    });
  },
};
