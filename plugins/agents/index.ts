import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { agentAdminRoutes } from './agent-admin-routes.ts';
import { registerAgentAuth } from './agent-auth.ts';
import { agentJobRoutes } from './agent-job-routes.ts';

/** On-site agents: admin routes (`integrations:manage`) and the agent protocol (agent token). */
export const agentsPlugin: Plugin<AppContext> = {
  name: 'rampart-agents',
  register(server, ctx) {
    registerAgentAuth(server, ctx.services.agents);
    // Long polls would otherwise hold a graceful stop for up to 30 s: end them first (they answer 204).
    server.ext('onPreStop', () => ctx.services.agents.interruptWaits());
    server.route([...agentAdminRoutes(ctx), ...agentJobRoutes(ctx)]);
  },
};
