import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { tenantRoutes } from './tenant-routes.ts';
import { tokenRoutes } from './token-routes.ts';
import { userRoutes } from './user-routes.ts';

/** Platform administration (scope `admin`): tenants, users, tokens. */
export const adminPlugin: Plugin<AppContext> = {
  name: 'rampart-admin',
  register(server, ctx) {
    server.route([...tenantRoutes(ctx), ...userRoutes(ctx), ...tokenRoutes(ctx)]);
  },
};
