import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { exportRoutes } from './export-routes.ts';

/** Finding exports (scope findings:read): CSV/JSON/PDF, streamed or as background jobs with a download URL. */
export const findingExportsPlugin: Plugin<AppContext> = {
  name: 'rampart-finding-exports',
  register(server, ctx) {
    server.route(exportRoutes(ctx));
  },
};
