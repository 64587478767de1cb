import type { Plugin, Request, ResponseToolkit, ResponseObject } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import { RampartError } from '../errors.ts';
import { acceptedTypes, mediaTypeOf, unsupportedMediaType } from './form-bodies.ts';
import type { Logger } from '../logger.ts';
import { safePath } from '../logger.ts';

/** Codes for errors hapi raises itself (routing, payload parsing, auth, scope). */
const BOOM_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  503: 'service_unavailable',
};

interface ErrorBody {
  status: 'error';
  error: { code: string; message: string; [key: string]: unknown };
}

function fromBoom(request: Request, err: Boom): ErrorBody {
  const status = err.output.statusCode;
  let code = BOOM_CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
  let message = err.message;
  const extra: Record<string, unknown> = {};
  if (status === 404) message = `No route for ${request.method.toUpperCase()} ${safePath(request.path)}.`;
  if (status === 400 && /JSON/i.test(err.message)) {
    code = 'invalid_json';
    message = 'The request body is not valid JSON.';
  }
  if (status === 400 && /multipart|payload/i.test(err.message) && code !== 'invalid_json') message = 'The request body could not be read.';
  if (status === 413) message = 'The request body is larger than this endpoint accepts.';
  if (status === 415) {
    // What the route takes and how to send JSON, not only that this type is refused.
    const refusal = unsupportedMediaType(mediaTypeOf(request.headers['content-type']), acceptedTypes(request));
    message = refusal.message;
    Object.assign(extra, refusal.extra);
  }
  if (status === 403 && err.message === 'Insufficient scope') {
    type ScopeNeed = { required?: string[]; selection?: string[] };
    const needs = (err.data as { need?: ScopeNeed[] } | null)?.need ?? [];
    const need = [...new Set(needs.flatMap((n) => [...(n.required ?? []), ...(n.selection ?? [])]))];
    code = 'insufficient_scope';
    message = `This token lacks the required scope${need.length > 1 ? 's' : ''}: ${need.join(', ')}.`;
    extra.required_scopes = need;
  }
  return { status: 'error', error: { code, message, ...extra } };
}

/**
 * The one place where failures become HTTP: every status of every route (unknown
 * routes too) gets `{status: "error", error: {code, message, ...}}`. Unexpected
 * errors are logged with their stack and answered with a bare 500 and a request id,
 * never the stack, SQL or driver message.
 */
export function errorResponsePlugin(logger: Logger): Plugin<void> {
  return {
    name: 'rampart-error-response',
    register(server) {
      server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
        const response = request.response as ResponseObject | Boom;
        if (!('isBoom' in response) || !response.isBoom) return h.continue;

        const requestId = request.info.id;
        let status: number;
        let body: ErrorBody;
        const headers: Record<string, string> = {};
        if (response instanceof RampartError) {
          status = response.statusCode;
          body = { status: 'error', error: { code: response.code, message: response.message, ...response.extra } };
          // 429 (rate limited) and 503 (e.g. rate limiting unavailable, fail-closed) say when to come back.
          if ((status === 429 || status === 503) && response.extra.retry_after !== undefined) headers['retry-after'] = String(response.extra.retry_after);
        } else if (response.output.statusCode >= 500) {
          status = response.output.statusCode;
          logger.error({ req_id: requestId, err: { message: response.message, stack: response.stack } }, 'unhandled error');
          body = { status: 'error', error: { code: status === 503 ? 'service_unavailable' : 'internal_error', message: 'An unexpected error occurred.', request_id: requestId } };
        } else {
          status = response.output.statusCode;
          body = fromBoom(request, response);
        }
        if (status === 401) headers['www-authenticate'] = 'Bearer realm="rampart"';
        // Headers set by earlier extensions (rate limits, request id) survive the swap.
        const carried = (response.output.headers ?? {}) as Record<string, string>;
        const out = h.response(body).code(status);
        for (const [name, value] of Object.entries({ ...carried, ...headers })) {
          if (name.toLowerCase() !== 'content-type' && name.toLowerCase() !== 'content-length') out.header(name, String(value));
        }
        return out;
      });
    },
  };
}
