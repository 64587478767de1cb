import type { TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

/**
 * Tenant A's records, one of every kind, made through the API as a user would, plus the
 * distinctive strings (ids, names, values) none of tenant B's responses may carry.
 */
export interface SeededTenant {
  tenantId: string;
  token: string;
  marker: string;
  ids: {
    asset: string;
    scan: string;
    finding: string;
    export: string;
    webhook: string;
    delivery: string;
    siem: string;
    schedule: string;
    credential: string;
    action: string;
    definition: string;
    execution: string;
    agentExecution: string;
    agent: string;
    agentJob: string;
    approval: string;
    playbook: string;
    playbookRun: string;
    sbom: string;
    component: string;
    apiToken: string;
  };
  agentToken: string;
  agentLabel: string;
  /** Every string of A that must never reach B: ids, names and planted values. */
  secrets: string[];
  /** What B's requests may name of A (ids, the credential name, the action's name). */
  references: string[];
}

type Call = (method: string, url: string, payload?: unknown, expect?: number) => Promise<any>;

export function caller(app: TestApp, token: string): Call {
  return async (method, url, payload, expect) => {
    const res = await app.request(method, url, { token, payload });
    if (expect !== undefined ? res.statusCode !== expect : res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.raw}`);
    return res.body;
  };
}

/**
 * Seeds tenant A. Needs the action and playbook run workers and the export worker running
 * (the agent job, the playbook step's approval and the ready export come from them).
 * `marker` is in every name and planted value, so a leak of any of them is one substring.
 */
export async function seedTenant(app: TestApp, marker: string): Promise<SeededTenant> {
  const { tenantId, token } = await app.tenant({ name: `${marker}-tenant` });
  const call = caller(app, token);
  // Not carrying the marker: tenant B's agent takes the same label (it must still never get A's job).
  const label = `lbl-${marker.slice(5)}`;

  const asset = (await call('POST', '/api/assets', { name: `${marker}.example`, type: 'domain', tags: [`${marker}-tag`], metadata: { owner: `${marker}-owner` } })).data.id;
  const scan = (await call('POST', '/api/scan/create', { asset_id: asset, scan_type: 'web_app' })).data.scan_id;
  const finding = (await call('POST', '/api/findings', { asset_id: asset, scan_id: scan, title: `${marker} finding title`, description: `${marker} finding body`, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' })).data.id;
  const exported = (await call('POST', '/api/findings/export', { format: 'csv', filters: { asset_id: asset } })).data.id;
  await eventually(async () => (await call('GET', `/api/findings/exports/${exported}`)).data.status === 'completed', 20_000);

  const webhook = (await call('POST', '/api/webhooks', { name: `${marker}-hook`, url: `https://127.0.0.1:9/${marker}-hook`, events: ['finding.new'], secret: `${marker}-webhook-secret-0123` })).data.id;
  const delivery = (await call('POST', `/api/webhooks/${webhook}/test`)).data.id;
  const siem = (await call('POST', '/api/integrations/siem', { name: `${marker}-siem`, type: 'syslog', protocol: 'tcp', host: '127.0.0.1', port: 9, format: 'cef', events: ['finding.new'] })).data.id;
  const schedule = (await call('POST', '/api/scan-schedules', { asset_id: asset, cron: '0 3 * * 1', scan_type: 'web_app', name: `${marker}-schedule` })).data.id;
  const credential = `${marker}_cred`;
  await call('POST', '/api/credentials', { name: credential, value: `${marker}-credential-value`, sandbox_value: `${marker}-sandbox-value` });

  // An approval action: its run waits on an approval request, which stays pending.
  const action = (await call('POST', '/api/actions', { name: `${marker}-approve`, type: 'approval', executor: 'local', description: `${marker} approval`, config: { required_approvals: 1, expires_in_seconds: 3600, message: `${marker} approve?` } })).data.id;
  const triggered = (await call('POST', `/api/actions/${action}/trigger`, { parameters: {} })).data;
  const execution = triggered.execution_id as string;
  const approval = triggered.approval_id as string;

  // A definition with two versions, run on an agent: its job waits for an agent of the label.
  const agentCreated = (await call('POST', '/api/agents', { name: `${marker}-agent`, labels: [label] })).data;
  const definitionBody = { name: `${marker}-contain`, type: 'containment', executor: { type: 'agent', target: label }, config: { script: 'contain.sh' }, parameters: [{ name: 'note', type: 'string', required: false }], timeout_seconds: 600, enabled: true };
  const definition = (await call('POST', '/api/actions/definitions', { ...definitionBody, version: '1.0.0' })).id;
  await call('POST', `/api/actions/definitions/${definition}/versions`, { ...definitionBody, version: '1.1.0', description: `${marker} v1.1` });
  const agentExecution = (await call('POST', `/api/actions/${definition}/trigger`, { parameters: { note: `${marker}-param` } })).data.execution_id;
  // Queued jobs are aimed at a label, not yet at an agent, so the agent's job list is empty: read the row.
  const agentJob = await eventually(async () => ((await app.ctx.db('agent_jobs').where({ execution_id: agentExecution }).first()) as { id: string } | undefined)?.id, 20_000);

  // A manual playbook with two versions; its run pauses on the approval step.
  const playbookBody = { name: `${marker}-playbook`, description: `${marker} playbook`, trigger: { event: 'manual', conditions: {} }, tags: [`${marker}-pbtag`], parameters: { who: `${marker}-who` }, steps: [{ id: 'ask', name: `${marker}-step`, type: 'action', action_ref: action, parameters: {}, on_success: null }] };
  const playbook = (await call('POST', '/api/playbooks', { ...playbookBody, version: '1.0.0' })).data.id;
  await call('PUT', `/api/playbooks/${playbook}`, { ...playbookBody, version: '1.1.0' });
  const playbookRun = (await call('POST', `/api/playbooks/${playbook}/run`, { target_asset_id: asset }, 202)).data.execution_id;
  await eventually(async () => (await call('GET', `/api/playbooks/executions/${playbookRun}`)).data.status === 'paused', 20_000);

  // The asset's software inventory: one upload, two components carrying the marker.
  const bom = { bomFormat: 'CycloneDX', specVersion: '1.6', metadata: { component: { type: 'application', name: `${marker}-app`, 'bom-ref': 'app' } }, components: [{ type: 'library', name: `${marker}-lib`, version: '1.0.0', purl: `pkg:npm/${marker}-lib@1.0.0`, 'bom-ref': 'lib' }, { type: 'library', name: `${marker}-dep`, version: '2.0.0', 'bom-ref': 'dep' }], dependencies: [{ ref: 'app', dependsOn: ['lib'] }, { ref: 'lib', dependsOn: ['dep'] }] };
  const sbom = (await call('POST', `/api/assets/${asset}/sbom`, bom)).data.sbom.id;
  const component = (await call('GET', `/api/assets/${asset}/components`)).data[0].id;
  const apiToken = (await call('GET', '/api/user/me')).data.token.id;

  const ids = { asset, scan, finding, export: exported, webhook, delivery, siem, schedule, credential, action, definition, execution, agentExecution, agent: agentCreated.id, agentJob, approval, playbook, playbookRun, sbom, component, apiToken };
  const stepIds = (await call('GET', `/api/playbooks/executions/${playbookRun}/steps`)).data.flatMap((s: { action_execution_id: string | null; output: { approval_id?: string } | null }) => [s.action_execution_id, s.output?.approval_id]);
  const versionIds = [
    ...(await call('GET', `/api/actions/definitions/${definition}/versions`)).data.map((v: { id: string }) => v.id),
    ...(await call('GET', `/api/playbooks/${playbook}/versions`)).data.map((v: { id: string }) => v.id),
  ];
  const secrets = [marker, tenantId, token, agentCreated.token, ...Object.values(ids), ...stepIds, ...versionIds].filter((s): s is string => typeof s === 'string' && s.length > 0);
  return { tenantId, token, marker, ids, agentToken: agentCreated.token, agentLabel: label, secrets: [...new Set(secrets)], references: [...Object.values(ids), `${marker}-approve`] };
}

/** A's records as A sees them: after every attack they must be exactly as before. */
export const snapshotUrls = (s: SeededTenant) => [
  `/api/assets/${s.ids.asset}`,
  `/api/findings/${s.ids.finding}`,
  `/api/findings/exports/${s.ids.export}`,
  `/api/scan/${s.ids.scan}`,
  `/api/scan-schedules/${s.ids.schedule}`,
  `/api/webhooks/${s.ids.webhook}`,
  `/api/webhooks/${s.ids.webhook}/deliveries/${s.ids.delivery}`,
  `/api/integrations/siem/${s.ids.siem}`,
  `/api/credentials/${s.ids.credential}`,
  `/api/actions/${s.ids.action}`,
  `/api/actions/${s.ids.definition}`,
  `/api/actions/definitions/${s.ids.definition}/versions`,
  `/api/actions/executions/${s.ids.execution}`,
  `/api/agents/${s.ids.agent}`,
  `/api/agents/${s.ids.agent}/jobs`,
  `/api/approvals/${s.ids.approval}`,
  `/api/playbooks/${s.ids.playbook}`,
  `/api/playbooks/${s.ids.playbook}/versions`,
  `/api/playbooks/executions/${s.ids.playbookRun}`,
  `/api/playbooks/executions/${s.ids.playbookRun}/steps`,
  `/api/assets/${s.ids.asset}/components`,
  `/api/assets/${s.ids.asset}/component-changes`,
  `/api/components/${s.ids.component}`,
];
