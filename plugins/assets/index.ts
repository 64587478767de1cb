import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { assetBulkRoute } from './asset-bulk-route.ts';
import { assetRoutes } from './asset-routes.ts';
import { assetVerifyRoutes } from './asset-verify-routes.ts';

/** Asset registry (scopes assets:read / assets:write): CRUD, bulk import, ownership verification. */
export const assetsPlugin: Plugin<AppContext> = {
  name: 'rampart-assets',
  register(server, ctx) {
    server.route([...assetRoutes(ctx), assetBulkRoute(ctx), ...assetVerifyRoutes(ctx)]);
  },
};
