import { dirname } from 'node:path';
import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { RATE_LIMIT_EXEMPT } from '../../core/http/rate-limit-settings.ts';
import { CONSOLE_DIR, CONSOLE_FILE_PATTERN, VENDOR_FILES } from './console-assets.ts';
import { consolePage } from './console-page.ts';

/**
 * Public and unmetered: the console's files are the same for everyone and hold no data (the
 * data comes from the API, with the user's token). A first load fetches a few dozen small
 * modules; charging them to the client address's 20-request burst would 429 the console.
 */
const publicStatic = {
  auth: false as const,
  plugins: { rampart: { rateLimit: RATE_LIMIT_EXEMPT } },
  // Every file is revalidated against its ETag, so an upgrade shows at the next load.
  cache: { privacy: 'public' as const, otherwise: 'no-cache' },
};

const HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/**
 * The management console at /console: one HTML page, the console's own modules from
 * `console/`, and an allow-list of vendor modules from node_modules (docs/design/console.md).
 * The console talks to the public API only; this plugin serves files and nothing else.
 */
export const consolePlugin: Plugin<AppContext> = {
  name: 'rampart-console',
  register(server, ctx) {
    const page = consolePage(ctx.version);
    const headers = { ...HEADERS, 'content-security-policy': page.csp };

    // Every console response, 304s and errors included, carries the policy and the frame ban.
    server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
      if (!request.path.startsWith('/console')) return h.continue;
      const response = request.response;
      if (!response) return h.continue;
      if ('isBoom' in response && response.isBoom) Object.assign(response.output.headers, headers);
      else for (const [name, value] of Object.entries(headers)) (response as { header(n: string, v: string): void }).header(name, value);
      return h.continue;
    }, { sandbox: 'plugin' });

    const routes: ServerRoute[] = [
      {
        method: 'GET',
        path: '/console',
        options: { ...publicStatic, validate: { query: Joi.object({}) }, description: 'The management console' },
        handler: (_request, h) => {
          const unchanged = h.entity({ etag: page.etag });
          if (unchanged) return unchanged;
          return h.response(page.html).type('text/html; charset=utf-8');
        },
      },
      {
        method: 'GET',
        path: '/console/',
        options: { ...publicStatic, validate: { query: Joi.object({}) } },
        handler: (_request, h) => h.redirect('/console'),
      },
      {
        method: 'GET',
        path: '/console/vendor/{file}',
        options: {
          ...publicStatic,
          validate: { query: Joi.object({}), params: Joi.object({ file: Joi.string().valid(...Object.keys(VENDOR_FILES)).required() }) },
        },
        handler: (request, h) => {
          const { file } = VENDOR_FILES[String(request.params.file)]!;
          return h.file(file, { confine: dirname(file), etagMethod: 'hash' });
        },
      },
      {
        method: 'GET',
        path: '/console/{path*}',
        options: {
          ...publicStatic,
          validate: { query: Joi.object({}), params: Joi.object({ path: Joi.string().max(200).pattern(CONSOLE_FILE_PATTERN).required() }) },
        },
        // confine: the pattern already rules out `..`; the confinement is the second lock.
        handler: (request, h) => h.file(String(request.params.path), { confine: CONSOLE_DIR, etagMethod: 'hash' }),
      },
    ];
    server.route(routes);
  },
};
