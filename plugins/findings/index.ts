import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { findingImportRoutes } from './finding-import-routes.ts';
import { findingMergeRoutes } from './finding-merge-routes.ts';
import { findingRoutes } from './finding-routes.ts';

/** Findings (scopes findings:read / findings:write): list, detail, stats, triage, import, merge and split. */
export const findingsPlugin: Plugin<AppContext> = {
  name: 'rampart-findings',
  register(server, ctx) {
    server.route([...findingRoutes(ctx), ...findingImportRoutes(ctx), ...findingMergeRoutes(ctx)]);
  },
};
