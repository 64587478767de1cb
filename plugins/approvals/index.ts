import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { approvalRoutes } from './approval-routes.ts';

/** Approval requests (read: actions:read or playbooks:read; decide: actions:execute or playbooks:run). */
export const approvalsPlugin: Plugin<AppContext> = {
  name: 'rampart-approvals',
  register(server, ctx) {
    server.route(approvalRoutes(ctx));
  },
};
