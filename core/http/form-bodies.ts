import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { RampartError } from '../errors.ts';

/** Body types hapi parses into fields by default; the API speaks JSON. */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** The media type of a request's Content-Type, lower case, without parameters. */
export function mediaTypeOf(header: unknown): string {
  return (typeof header === 'string' ? header : '').split(';')[0]!.trim().toLowerCase();
}

/** What a route takes, for the 415 message: its explicit `payload.allow`, else JSON. */
export function acceptedTypes(request: Request): string[] {
  const allow = request.route.settings.payload?.allow;
  if (!allow) return ['application/json'];
  return Array.isArray(allow) ? allow : [allow];
}

export function unsupportedMediaType(sent: string, accepted: string[]): RampartError {
  const takes = accepted.length === 1 && accepted[0] === 'application/json' ? 'only JSON' : accepted.join(', ');
  return new RampartError(415, 'unsupported_media_type', `This endpoint takes ${takes}: send the body as JSON with the header Content-Type: application/json${sent ? ` (the request sent ${sent})` : ''}.`, { accepted_types: accepted });
}

/**
 * 415 for a form-encoded or multipart body sent to a route that did not ask for one. hapi
 * would parse it into fields and the route's validation would answer "name is required …
 * is not allowed", or, worse, accept fields that happen to match. Runs after
 * authentication (onPostAuth: a 401 stays a 401) and before validation.
 */
export const formBodiesPlugin: Plugin<void> = {
  name: 'rampart-form-bodies',
  register(server) {
    server.ext('onPostAuth', (request: Request, h: ResponseToolkit) => {
      const sent = mediaTypeOf(request.headers['content-type']);
      if (!FORM_TYPES.includes(sent)) return h.continue;
      const accepted = acceptedTypes(request);
      if (accepted.some((a) => mediaTypeOf(a) === sent)) return h.continue;
      throw unsupportedMediaType(sent, accepted);
    });
  },
};
