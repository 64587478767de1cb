import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { deliveryRoutes } from './delivery-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';

/** Webhooks (scope `webhooks:manage`): endpoints, secret rotation, test sends, deliveries, retry and recovery. */
export const webhooksPlugin: Plugin<AppContext> = {
  name: 'rampart-webhooks',
  register(server, ctx) {
    server.route([...webhookRoutes(ctx), ...deliveryRoutes(ctx)]);
  },
};
