// @ts-check

/**
 * Every page of the console, in navigation order. To add a page: write
 * `pages/<name>.js` exporting `default function Page({ params, query })`, then add one
 * entry here (docs/design/console.md). `scopes` are what the page needs to show anything;
 * without them its link is shown disabled with the reason. `nav` is the link text (routes
 * without it, such as details, are reached from their list).
 *
 * @typedef {{ params: Record<string, string>, query: Record<string, string> }} PageProps
 * @typedef {{ path: string, title: string, scopes: string[], nav?: string, load: () => Promise<{ default: (props: PageProps) => any }> }} Route
 */

/** @type {Route[]} */
export const routes = [
  { path: '/', title: 'Overview', nav: 'Overview', scopes: ['findings:read'], load: () => import('../pages/overview.js') },
  { path: '/findings', title: 'Findings', nav: 'Findings', scopes: ['findings:read'], load: () => import('../pages/findings.js') },
  { path: '/findings/:id', title: 'Finding', scopes: ['findings:read'], load: () => import('../pages/finding.js') },
  { path: '/assets', title: 'Assets', nav: 'Assets', scopes: ['assets:read'], load: () => import('../pages/assets.js') },
  { path: '/assets/:id', title: 'Asset', scopes: ['assets:read'], load: () => import('../pages/asset.js') },
  { path: '/components', title: 'Where do we run…', nav: 'Software', scopes: ['assets:read'], load: () => import('../pages/components.js') },
  { path: '/components/:id', title: 'Component', scopes: ['assets:read', 'findings:read'], load: () => import('../pages/component.js') },
  { path: '/scans', title: 'Scans', nav: 'Scans', scopes: ['scan:read'], load: () => import('../pages/scans.js') },
  { path: '/scans/:id', title: 'Scan', scopes: ['scan:read'], load: () => import('../pages/scan.js') },
  { path: '/schedules', title: 'Scan schedules', scopes: ['scan:read'], load: () => import('../pages/schedules.js') },
  { path: '/webhooks', title: 'Webhooks', nav: 'Webhooks', scopes: ['webhooks:manage'], load: () => import('../pages/webhooks.js') },
  { path: '/webhooks/:id', title: 'Webhook', scopes: ['webhooks:manage'], load: () => import('../pages/webhook.js') },
  { path: '/actions', title: 'Actions', nav: 'Actions', scopes: ['actions:read'], load: () => import('../pages/actions.js') },
  { path: '/actions/executions/:id', title: 'Action execution', scopes: ['actions:read'], load: () => import('../pages/execution.js') },
  { path: '/actions/:id', title: 'Action', scopes: ['actions:read'], load: () => import('../pages/action.js') },
  // The API answers approvals to either read scope; the menu asks for the one of actions, which every approval today is about.
  { path: '/approvals', title: 'Approvals', nav: 'Approvals', scopes: ['actions:read'], load: () => import('../pages/approvals.js') },
  { path: '/playbooks', title: 'Playbooks', nav: 'Playbooks', scopes: ['playbooks:read'], load: () => import('../pages/playbooks.js') },
  { path: '/playbooks/runs/:id', title: 'Playbook run', scopes: ['playbooks:read'], load: () => import('../pages/playbook-run.js') },
  { path: '/playbooks/:id', title: 'Playbook', scopes: ['playbooks:read'], load: () => import('../pages/playbook.js') },
  { path: '/events', title: 'Event stream', nav: 'Event stream', scopes: ['events:read'], load: () => import('../pages/events.js') },
  // Each section checks its own scope: plugins need none, tokens need admin.
  { path: '/settings', title: 'Settings', nav: 'Settings', scopes: [], load: () => import('../pages/settings.js') },
];

/** The page shown for an unknown path. */
export const notFoundRoute = /** @type {Route} */ ({ path: '*', title: 'Not found', scopes: [], load: () => import('../pages/not-found.js') });
