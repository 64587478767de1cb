import type { SeededTenant } from './seed-tenant.ts';

/** Tenant B as the attacker sees itself: its API token, an agent token, and a few records of its own. */
export interface Attacker {
  tenantId: string;
  token: string;
  agentToken: string;
  ids: { asset: string; webhook: string; action: string; playbook: string };
}

/** One request B makes with A's ids. `as: 'agent'` uses B's agent token. */
export interface Probe {
  url: string;
  payload?: unknown;
  as?: 'agent';
}

type Entry = (a: SeededTenant, b: Attacker) => Probe[];

/** One request; a payload given as a function is built from A's records. */
const one = (url: (a: SeededTenant, b: Attacker) => string, payload?: unknown, as?: 'agent'): Entry => (a, b) => [
  { url: url(a, b), payload: typeof payload === 'function' ? (payload as (a: SeededTenant) => unknown)(a) : payload, as },
];

export const playbookDef = (a: SeededTenant) => ({
  name: `pb-${a.ids.playbook.slice(-6)}`,
  version: '9.0.0',
  trigger: { event: 'manual', conditions: {} },
  parameters: { x: 1 },
  steps: [{ id: 's', type: 'condition', if: { 'parameters.x': 1 }, on_true: null, on_false: null }],
});
const definitionVersion = { type: 'containment', version: '9.0.0', executor: { type: 'local', target: 'x.sh' } };

/**
 * Every tenant route that takes an id in its path, keyed `METHOD path` exactly as
 * `server.table()` lists it, and the requests tenant B makes against it with A's ids
 * (bodies valid, so only the ownership check can refuse them). A route of the table with
 * a path parameter and no entry here (or in ADMIN/EXEMPT) fails the matrix test.
 */
export const ROUTE_MATRIX: Record<string, Entry> = {
  'GET /api/assets/{id}': one((a) => `/api/assets/${a.ids.asset}`),
  'PUT /api/assets/{id}': one((a) => `/api/assets/${a.ids.asset}`, { tags: ['taken'], status: 'inactive' }),
  'DELETE /api/assets/{id}': one((a) => `/api/assets/${a.ids.asset}`),
  'POST /api/assets/{id}/verify': one((a) => `/api/assets/${a.ids.asset}/verify`, {}),
  'POST /api/assets/{id}/verify/check': one((a) => `/api/assets/${a.ids.asset}/verify/check`, {}),

  'POST /api/assets/{id}/sbom': one((a) => `/api/assets/${a.ids.asset}/sbom`, { bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ type: 'library', name: 'bravo-lib', version: '9.9.9' }] }),
  'GET /api/assets/{id}/sboms': one((a) => `/api/assets/${a.ids.asset}/sboms`),
  'GET /api/assets/{id}/components': one((a) => `/api/assets/${a.ids.asset}/components`),
  'GET /api/assets/{id}/component-changes': one((a) => `/api/assets/${a.ids.asset}/component-changes`),
  'GET /api/components/{id}': one((a) => `/api/components/${a.ids.component}`),
  'DELETE /api/user/tokens/{id}': one((a) => `/api/user/tokens/${a.ids.apiToken}`),

  'GET /api/findings/{id}': one((a) => `/api/findings/${a.ids.finding}`),
  'PUT /api/findings/{id}/status': one((a) => `/api/findings/${a.ids.finding}/status`, { status: 'resolved', note: 'closed by B' }),
  // B merging A's finding into its own request, and splitting A's finding: 404 either way, nothing moves.
  'POST /api/findings/{id}/merge': one((a) => `/api/findings/${a.ids.finding}/merge`, { finding_ids: ['fnd_00000000000000000000000000'] }),
  'POST /api/findings/{id}/split': one((a) => `/api/findings/${a.ids.finding}/split`, {}),
  'GET /api/findings/exports/{id}': one((a) => `/api/findings/exports/${a.ids.export}`),
  'GET /api/findings/exports/{id}/download': one((a) => `/api/findings/exports/${a.ids.export}/download`),

  'GET /api/scan/{id}': one((a) => `/api/scan/${a.ids.scan}`),
  'GET /api/scan/{id}/status': one((a) => `/api/scan/${a.ids.scan}/status`),
  'GET /api/scan/{id}/results': one((a) => `/api/scan/${a.ids.scan}/results`),
  'POST /api/scan/{id}/cancel': one((a) => `/api/scan/${a.ids.scan}/cancel`, {}),
  'GET /api/scan-schedules/{id}': one((a) => `/api/scan-schedules/${a.ids.schedule}`),
  'PUT /api/scan-schedules/{id}': one((a) => `/api/scan-schedules/${a.ids.schedule}`, { enabled: false, cron: '*/5 * * * *' }),
  'DELETE /api/scan-schedules/{id}': one((a) => `/api/scan-schedules/${a.ids.schedule}`),

  'GET /api/webhooks/{id}': one((a) => `/api/webhooks/${a.ids.webhook}`),
  'PUT /api/webhooks/{id}': one((a) => `/api/webhooks/${a.ids.webhook}`, { name: 'taken', active: false }),
  'DELETE /api/webhooks/{id}': one((a) => `/api/webhooks/${a.ids.webhook}`),
  'POST /api/webhooks/{id}/test': one((a) => `/api/webhooks/${a.ids.webhook}/test`),
  'POST /api/webhooks/{id}/rotate-secret': one((a) => `/api/webhooks/${a.ids.webhook}/rotate-secret`, { secret: 'attacker-secret-0123456789' }),
  'POST /api/webhooks/{id}/recover': one((a) => `/api/webhooks/${a.ids.webhook}/recover`, { since: '2020-01-01T00:00:00.000Z' }),
  'GET /api/webhooks/{id}/deliveries': one((a) => `/api/webhooks/${a.ids.webhook}/deliveries`),
  // A's delivery under A's webhook, and under B's own webhook (the delivery's owner must be checked, not only the webhook's).
  'GET /api/webhooks/{id}/deliveries/{delivery_id}': (a, b) => [a.ids.webhook, b.ids.webhook].map((w) => ({ url: `/api/webhooks/${w}/deliveries/${a.ids.delivery}` })),
  'POST /api/webhooks/{id}/deliveries/{delivery_id}/retry': (a, b) => [a.ids.webhook, b.ids.webhook].map((w) => ({ url: `/api/webhooks/${w}/deliveries/${a.ids.delivery}/retry` })),

  'GET /api/integrations/siem/{id}': one((a) => `/api/integrations/siem/${a.ids.siem}`),
  'PUT /api/integrations/siem/{id}': one((a) => `/api/integrations/siem/${a.ids.siem}`, { name: 'taken', active: false }),
  'DELETE /api/integrations/siem/{id}': one((a) => `/api/integrations/siem/${a.ids.siem}`),
  'POST /api/integrations/siem/{id}/test': one((a) => `/api/integrations/siem/${a.ids.siem}/test`),

  'GET /api/credentials/{name}': one((a) => `/api/credentials/${a.ids.credential}`),
  'PUT /api/credentials/{name}': one((a) => `/api/credentials/${a.ids.credential}`, { value: 'attacker-rotated-value', sandbox_value: null }),
  'DELETE /api/credentials/{name}': one((a) => `/api/credentials/${a.ids.credential}`),

  'GET /api/actions/{id}': (a) => [a.ids.action, a.ids.definition].map((id) => ({ url: `/api/actions/${id}` })),
  'POST /api/actions/{id}/trigger': (a, b) => [
    { url: `/api/actions/${a.ids.action}/trigger`, payload: { parameters: {} } },
    { url: `/api/actions/${a.ids.definition}/trigger`, payload: { parameters: { note: 'x' }, sandbox: true } },
    { url: `/api/actions/${a.ids.action}/trigger`, payload: { parameters: {}, target: b.ids.asset } },
  ],
  'POST /api/actions/{id}/execute': one((a) => `/api/actions/${a.ids.action}/execute`, { parameters: {}, dry_run: true }),
  'GET /api/actions/{id}/executions': one((a) => `/api/actions/${a.ids.action}/executions`),
  'GET /api/actions/{id}/runs': one((a) => `/api/actions/${a.ids.definition}/runs`),
  'GET /api/actions/executions/{execution_id}': (a) => [a.ids.execution, a.ids.agentExecution].map((id) => ({ url: `/api/actions/executions/${id}` })),
  'POST /api/actions/executions/{execution_id}/cancel': (a) => [a.ids.execution, a.ids.agentExecution].map((id) => ({ url: `/api/actions/executions/${id}/cancel`, payload: {} })),
  'GET /api/actions/definitions/{id}/versions': one((a) => `/api/actions/definitions/${a.ids.definition}/versions`),
  'POST /api/actions/definitions/{id}/versions': one((a) => `/api/actions/definitions/${a.ids.definition}/versions`, definitionVersion),
  'PATCH /api/actions/definitions/{id}': one((a) => `/api/actions/definitions/${a.ids.definition}`, { enabled: false }),

  'GET /api/agents/{id}': one((a) => `/api/agents/${a.ids.agent}`),
  'DELETE /api/agents/{id}': one((a) => `/api/agents/${a.ids.agent}`),
  'GET /api/agents/{id}/jobs': one((a) => `/api/agents/${a.ids.agent}/jobs`),
  'POST /api/agent/jobs/{id}/start': one((a) => `/api/agent/jobs/${a.ids.agentJob}/start`, undefined, 'agent'),
  'POST /api/agent/jobs/{id}/logs': one((a) => `/api/agent/jobs/${a.ids.agentJob}/logs`, { lines: [{ level: 'INFO', message: 'forged' }] }, 'agent'),
  'POST /api/agent/jobs/{id}/result': one((a) => `/api/agent/jobs/${a.ids.agentJob}/result`, { status: 'completed', output: { forged: true } }, 'agent'),

  'GET /api/approvals/{id}': one((a) => `/api/approvals/${a.ids.approval}`),
  'POST /api/approvals/{id}/approve': one((a) => `/api/approvals/${a.ids.approval}/approve`, { comment: 'B approves' }),
  'POST /api/approvals/{id}/deny': one((a) => `/api/approvals/${a.ids.approval}/deny`, { comment: 'B denies' }),

  'GET /api/playbooks/{id}': one((a) => `/api/playbooks/${a.ids.playbook}`),
  'PUT /api/playbooks/{id}': one((a) => `/api/playbooks/${a.ids.playbook}`, playbookDef),
  'PATCH /api/playbooks/{id}': one((a) => `/api/playbooks/${a.ids.playbook}`, { enabled: false }),
  'DELETE /api/playbooks/{id}': one((a) => `/api/playbooks/${a.ids.playbook}`),
  'GET /api/playbooks/{id}/versions': one((a) => `/api/playbooks/${a.ids.playbook}/versions`),
  'GET /api/playbooks/{id}/export': one((a) => `/api/playbooks/${a.ids.playbook}/export?format=cacao_v2`),
  'POST /api/playbooks/{id}/run': (a) => [
    { url: `/api/playbooks/${a.ids.playbook}/run`, payload: {} },
    { url: `/api/playbooks/${a.ids.playbook}/run`, payload: { dry_run: true } },
  ],
  'GET /api/playbooks/{id}/executions': one((a) => `/api/playbooks/${a.ids.playbook}/executions`),
  'GET /api/playbooks/executions/{execution_id}': one((a) => `/api/playbooks/executions/${a.ids.playbookRun}`),
  'GET /api/playbooks/executions/{execution_id}/steps': one((a) => `/api/playbooks/executions/${a.ids.playbookRun}/steps`),
  'POST /api/playbooks/executions/{execution_id}/cancel': one((a) => `/api/playbooks/executions/${a.ids.playbookRun}/cancel`, {}),
};

/**
 * List filters that take an id, keyed `METHOD path?key`: B filters by A's id and must get
 * nothing of A. A route of the table with an `*_id` query key and no entry fails the test.
 */
export const FILTER_MATRIX: Record<string, (a: SeededTenant) => string[]> = {
  'GET /api/findings?asset_id': (a) => [`/api/findings?asset_id=${a.ids.asset}`],
  'GET /api/findings?scan_id': (a) => [`/api/findings?scan_id=${a.ids.scan}`, `/api/findings?asset_id=${a.ids.asset}&scan_id=${a.ids.scan}`],
  'GET /api/scans?asset_id': (a) => [`/api/scans?asset_id=${a.ids.asset}`],
  'GET /api/scan-schedules?asset_id': (a) => [`/api/scan-schedules?asset_id=${a.ids.asset}`],
  // The asset in the path is A's as well: a 404 (an upload's changes are read through its asset, tenant-checked).
  'GET /api/assets/{id}/component-changes?sbom_id': (a) => [`/api/assets/${a.ids.asset}/component-changes?sbom_id=${a.ids.sbom}`],
  'GET /api/approvals?subject_id': (a) => [`/api/approvals?subject_id=${a.ids.execution}`, `/api/approvals?subject_kind=playbook_run&subject_id=${a.ids.playbookRun}`],
  // The event stream is checked live in its own test (it never ends, so it cannot be injected).
  // The import's ids name where results go, not what is listed: checked in bodyReferences.
  'POST /api/findings/import?asset_id': () => [],
  'POST /api/findings/import?scan_id': () => [],
  'GET /api/events/stream?asset_id': () => [],
};

/** Routes with a path parameter that hold no tenant data, and why. */
export const EXEMPT: Record<string, string> = {
  'GET /docs/assets/{file}': 'public API documentation files (Swagger UI), no tenant data',
  'GET /console/{path*}': 'the console\'s own static files and its single-page entry, no tenant data',
  'GET /console/vendor/{file}': 'pinned browser libraries served from node_modules, no tenant data',
};

/** Routes outside the tenant token's world: B's token is not theirs to call. */
export const NOT_TENANT_ROUTES: Record<string, string> = {
  'GET /metrics': 'its own scrape token (404 while unset); tested in test/plugins/metrics',
};

/**
 * Requests whose body names A's records (not the path): B must get a 4xx naming nothing
 * of A, and nothing is written.
 */
export function bodyReferences(a: SeededTenant, b: Attacker): Array<{ method: string; url: string; payload: unknown }> {
  const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';
  const zap = { '@version': '2.14.0', site: [{ '@name': 'https://bravo.example', '@host': 'bravo.example', '@port': '443', '@ssl': 'true', alerts: [{ pluginid: '10020', alertRef: '10020', alert: 'Missing Anti-clickjacking Header', name: 'Missing Anti-clickjacking Header', riskcode: '2', confidence: '2', riskdesc: 'Medium (Medium)', desc: 'x', instances: [{ uri: 'https://bravo.example/', method: 'GET', param: 'x-frame-options', attack: '', evidence: '' }], count: '1', solution: 'x', reference: '', cweid: '1021', wascid: '15', sourceid: '10' }] }] };
  return [
    { method: 'POST', url: `/api/findings/import?format=zap&asset_id=${a.ids.asset}`, payload: zap },
    { method: 'POST', url: `/api/findings/import?format=zap&asset_id=${b.ids.asset}&scan_id=${a.ids.scan}`, payload: zap },
    { method: 'POST', url: '/api/findings', payload: { asset_id: a.ids.asset, title: 'x', cvss_vector: vector } },
    { method: 'POST', url: '/api/findings', payload: { asset_id: b.ids.asset, scan_id: a.ids.scan, title: 'x', cvss_vector: vector } },
    { method: 'POST', url: '/api/findings/bulk', payload: { findings: [{ asset_id: a.ids.asset, title: 'x', cvss_vector: vector }] } },
    { method: 'POST', url: '/api/scan/create', payload: { asset_id: a.ids.asset, scan_type: 'web_app' } },
    { method: 'POST', url: '/api/scan-schedules', payload: { asset_id: a.ids.asset, cron: '0 3 * * 1', scan_type: 'web_app' } },
    { method: 'POST', url: `/api/actions/${b.ids.action}/trigger`, payload: { parameters: {}, target: a.ids.asset } },
    { method: 'POST', url: `/api/playbooks/${b.ids.playbook}/run`, payload: { target_asset_id: a.ids.asset } },
    { method: 'POST', url: `/api/playbooks/${b.ids.playbook}/run`, payload: { target_asset_id: a.ids.asset, dry_run: true } },
    {
      method: 'POST',
      url: '/api/playbooks',
      payload: { name: 'uses-a', version: '1.0.0', trigger: { event: 'manual', conditions: {} }, steps: [{ id: 's', type: 'action', action_ref: a.ids.action, parameters: {}, on_success: null }] },
    },
    {
      method: 'POST',
      url: '/api/playbooks',
      payload: { name: 'uses-a-name', version: '1.0.0', trigger: { event: 'manual', conditions: {} }, steps: [{ id: 's', type: 'action', action_ref: `${a.marker}-approve`, parameters: {}, on_success: null }] },
    },
  ];
}
