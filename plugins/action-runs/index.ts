import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { runRoutes } from './run-routes.ts';

/** Action runs (scopes `actions:execute` to start and cancel, `actions:read` to look): trigger, execute, executions, run logs, cancel. */
export const actionRunsPlugin: Plugin<AppContext> = {
  name: 'rampart-action-runs',
  register(server, ctx) {
    server.route(runRoutes(ctx));
  },
};
