import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { scanRoutes } from './scan-routes.ts';
import { scheduleRoutes } from './schedule-routes.ts';

/** Scans (scopes scan:read / scan:write): create, list, details, status, cancel, results; scheduled scans. */
export const scansPlugin: Plugin<AppContext> = {
  name: 'rampart-scans',
  register(server, ctx) {
    server.route([...scanRoutes(ctx), ...scheduleRoutes(ctx)]);
  },
};
