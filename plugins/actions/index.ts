import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { actionRoutes } from './action-routes.ts';
import { definitionRoutes } from './definition-routes.ts';

/** The action catalog (scopes actions:read / actions:write): reference view, definitions, versions. Runs live in plugins/action-runs. */
export const actionsPlugin: Plugin<AppContext> = {
  name: 'rampart-actions',
  register(server, ctx) {
    server.route([...actionRoutes(ctx), ...definitionRoutes(ctx)]);
  },
};
