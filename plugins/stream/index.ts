import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { streamRoute } from './stream-route.ts';

/** The Server-Sent Events stream (scope `events:read`). */
export const streamPlugin: Plugin<AppContext> = {
  name: 'rampart-stream',
  register(server, ctx) {
    server.route(streamRoute(ctx));
    // server.stop() waits for open responses; ending the streams first lets it finish at once.
    server.ext('onPreStop', () => ctx.streamHub.closeAll());
  },
};
