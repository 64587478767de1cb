import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { inventoryRoutes } from './inventory-routes.ts';

/** The software inventory (scopes assets:read / assets:write): SBOM uploads, components, where a package runs. */
export const inventoryPlugin: Plugin<AppContext> = {
  name: 'rampart-inventory',
  register(server, ctx) {
    server.route(inventoryRoutes(ctx));
  },
};
