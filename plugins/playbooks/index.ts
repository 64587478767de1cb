import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { playbookRoutes } from './playbook-routes.ts';
import { runRoutes } from './run-routes.ts';

/** Playbooks (scopes playbooks:read / playbooks:write / playbooks:run): definitions and versions; runs, triggers and CACAO add their routes here. */
export const playbooksPlugin: Plugin<AppContext> = {
  name: 'rampart-playbooks',
  register(server, ctx) {
    server.route([...playbookRoutes(ctx)]);
    server.route(runRoutes(ctx));
  },
};
