import type { Plugin } from '@hapi/hapi';
import type { AppContext } from '../core/app-context.ts';
import { adminPlugin } from './admin/index.ts';
import { approvalsPlugin } from './approvals/index.ts';
import { agentsPlugin } from './agents/index.ts';
import { assetsPlugin } from './assets/index.ts';
import { authPlugin } from './auth/index.ts';
import { docsPlugin } from './docs/index.ts';
import { findingExportsPlugin } from './finding-exports/index.ts';
import { findingsPlugin } from './findings/index.ts';
import { healthPlugin } from './health/index.ts';
import { pluginListPlugin } from './plugin-list/index.ts';
import { scansPlugin } from './scans/index.ts';
import { siemPlugin } from './siem/index.ts';
import { streamPlugin } from './stream/index.ts';
import { webhooksPlugin } from './webhooks/index.ts';
import { actionsPlugin } from './actions/index.ts';
import { credentialsPlugin } from './credentials/index.ts';
import { actionRunsPlugin } from './action-runs/index.ts';
import { playbooksPlugin } from './playbooks/index.ts';
import { metricsPlugin } from './metrics/index.ts';
import { importsPlugin } from './imports/index.ts';
import { inventoryPlugin } from './inventory/index.ts';
import { feedsPlugin } from './feeds/index.ts';
import { consolePlugin } from './console/index.ts';

/** Every API area, in registration order: core/main.ts (and the test harness) hand this list to createApp. */
export const routePlugins: Array<Plugin<AppContext>> = [healthPlugin, authPlugin, adminPlugin, pluginListPlugin, assetsPlugin, findingsPlugin, findingExportsPlugin, scansPlugin, webhooksPlugin, streamPlugin, siemPlugin, actionsPlugin, actionRunsPlugin, credentialsPlugin, approvalsPlugin, agentsPlugin, playbooksPlugin, importsPlugin, inventoryPlugin, feedsPlugin, metricsPlugin, docsPlugin, consolePlugin];
