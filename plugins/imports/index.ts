import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { importRoutes } from './import-routes.ts';

/** Other tools' result files as findings (scope findings:write): POST /api/findings/import. */
export const importsPlugin: Plugin<AppContext> = {
  name: 'rampart-imports',
  register(server, ctx) {
    server.route(importRoutes(ctx));
  },
};
