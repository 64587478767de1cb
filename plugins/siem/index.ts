import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { siemRoutes } from './siem-routes.ts';

/** SIEM integrations: syslog forwarding in CEF or RFC 5424 (scope `integrations:manage`). */
export const siemPlugin: Plugin<AppContext> = {
  name: 'rampart-siem',
  register(server, ctx) {
    server.route(siemRoutes(ctx));
  },
};
