import type { Plugin, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { feedStatusQuery, feedStatusSchema } from './feed-schemas.ts';

function feedRoutes(ctx: AppContext): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/feeds',
      options: {
        // Feeds are global and hold no tenant data: any token that reads findings may see which KEV/EPSS data enriches them.
        auth: { access: { scope: ['findings:read', 'admin'] } },
        tags: ['api', 'feeds'],
        description: 'The KEV catalog and EPSS scores in force, and their latest loads',
        notes: [
          'Feeds are global (one KEV catalog and one EPSS score set for every tenant), loaded with `rampart feeds load kev|epss FILE` or fetched on a schedule from `feeds.kev.url` / `feeds.epss.url` (off by default). Every load is listed with its source, feed date and version, row counts, what it added, removed or changed against the load before it, and the SHA-256 of the bytes received; a refused load (malformed or truncated feed) is listed with its error and was never in force.',
          'Tokens with `findings:read` see dates, versions, counts and hashes; a token with the `admin` scope also sees where each load came from (file path, mirror URL without credentials) and the scheduled fetch\'s last error. Formats, CLI and air-gapped mirrors: docs/feeds.md.',
        ].join('\n\n'),
        validate: { query: feedStatusQuery },
        response: { status: { 200: Joi.object({ data: Joi.array().items(feedStatusSchema).required() }).label('FeedStatusList') } },
      },
      handler: async (request) => {
        const caller = callerOf(request);
        const { recent } = request.query as { recent: number };
        return { data: await ctx.services.feeds.status({ platformAdmin: caller.scope.includes('admin'), recent }) };
      },
    },
  ];
}

/** The vulnerability-intelligence feeds' status (scope findings:read or admin). */
export const feedsPlugin: Plugin<AppContext> = {
  name: 'rampart-feeds',
  register(server, ctx) {
    server.route(feedRoutes(ctx));
  },
};
