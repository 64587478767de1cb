import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { credentialRoutes } from './credential-routes.ts';

/** The tenant credential store (scope integrations:manage): store, list, rotate, delete; values are never returned. */
export const credentialsPlugin: Plugin<AppContext> = {
  name: 'rampart-credentials',
  register(server, ctx) {
    server.route(credentialRoutes(ctx));
  },
};
