import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { playbookRoutes } from './playbook-routes.ts';
import { cacaoRoutes } from './cacao-routes.ts';
import { runRoutes } from './run-routes.ts';

/** Playbooks (scopes playbooks:read / playbooks:write / playbooks:run): definitions and versions, runs, CACAO v2 export and import. */
export const playbooksPlugin: Plugin<AppContext> = {
  name: 'rampart-playbooks',
  register(server, ctx) {
    server.route([...playbookRoutes(ctx)]);
    server.route(cacaoRoutes(ctx));
    server.route(runRoutes(ctx));
  },
};
