// The playbooks issue end to end: a real web scan of a loopback site produces finding.new
// events; one of them triggers a playbook whose steps run a real local executable, wait for
// an approval decided over the API, then call a webhook on a loopback HTTPS receiver.
import test from 'ava';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TENANT_SCOPES } from '../../../core/domain/scopes.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createAsset, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { startHttpTarget, type HttpTarget } from '../../_helpers/targets/http-target.ts';
import { badSite } from '../../_helpers/targets/web-sites.ts';

const dir = mkdtempSync(join(tmpdir(), 'rampart-e2e-'));
const marker = join(dir, 'tickets.log');
writeFileSync(join(dir, 'ticket.js'), `#!/usr/bin/env node
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const p = JSON.parse(input);
  require('fs').appendFileSync(${JSON.stringify(marker)}, JSON.stringify(p) + '\\n');
  process.stdout.write(JSON.stringify({ status: 'success', data: { ticket: 'SEC-42' } }));
});
`);
chmodSync(join(dir, 'ticket.js'), 0o755);

let app: TestApp;
let site: HttpTarget;
let receiver: HttpsReceiver;
let token: string;
let approver: string;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  site = await startHttpTarget(badSite);
  receiver = await startHttpsReceiver();
  app = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    scans: { worker: { leaseMs: 30_000, heartbeatMs: 500 } },
    executors: { local: { scriptsDir: dir }, pollIntervalMs: 20 },
    playbooks: { pollIntervalMs: 20 },
  });
  await app.app.start();
  token = app.adminToken;
  const tenantId = (await app.request('GET', '/api/user/me')).body.data.tenant.id;
  approver = (await app.ctx.services.admin.createToken(tenantId, { name: 'approver', scopes: TENANT_SCOPES, expiresAt: null })).token;
});

test.after.always(async () => {
  await app?.close();
  await site?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(url: string, payload: unknown) {
  const res = await app.request('POST', url, { token, payload });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.raw}`);
  return res.body;
}

test('a scan finding triggers a playbook: local executable, approval over the API, webhook to a loopback receiver', async (t) => {
  t.timeout(120_000);
  const ticket = (await post('/api/actions', { name: 'open-ticket', type: 'remediation', executor: 'local', config: { target: 'ticket.js' }, parameters: ['title', 'severity', 'asset'].map((name) => ({ name, type: 'string', required: true })) })).data.id;
  const gate = (await post('/api/actions', { name: 'change-approval', type: 'approval', executor: 'local', config: { required_approvals: 1, message: 'Close the listing?' } })).data.id;
  const notify = (await post('/api/actions', {
    name: 'notify-soc', type: 'webhook', executor: 'webhook',
    config: { url: `${receiver.origin}/soc`, method: 'POST', headers: {}, body_template: '{"title": "{{ title }}", "ticket": "{{ ticket }}"}' },
    parameters: [{ name: 'title', type: 'string', required: true }, { name: 'ticket', type: 'string', required: true }],
  })).data.id;
  const playbook = (await post('/api/playbooks', {
    name: 'listing-response', version: '1.0.0',
    trigger: { event: 'finding.new', conditions: { title: { matches: '^Directory listing' }, severity: { gte: 'low' } } },
    steps: [
      { id: 'ticket', name: 'Open a ticket', type: 'action', action_ref: 'open-ticket', parameters: { title: '{{ finding.title }}', severity: '{{ finding.severity }}', asset: '{{ asset.name }}' }, on_success: 'approve' },
      { id: 'approve', name: 'Ask the owner', type: 'action', action_ref: gate, parameters: {}, on_success: 'notify' },
      { id: 'notify', name: 'Tell the SOC', type: 'action', action_ref: `notify-soc@1.0.0`, parameters: { title: '{{ finding.title }}', ticket: '{{ steps.ticket.output.data.ticket }}' } },
    ],
  })).data.id;
  t.truthy(ticket && notify);

  const assetId = await createAsset(app, `${site.url}/`, 'url');
  const scan = (await post('/api/scan/create', { asset_id: assetId, scan_type: 'web_app', options: { max_depth: 3 } })).data.scan_id;
  const done = await waitForScan(app, scan, undefined, 90_000);
  t.is(done.status, 'completed');
  const findings = (await app.request('GET', `/api/findings?scan_id=${scan}&per_page=100`)).body.data as Array<{ title: string }>;
  t.true(findings.length > 1, 'the scan found several problems; only one matches the trigger');

  const runs = await eventually(async () => {
    const list = (await app.request('GET', `/api/playbooks/${playbook}/executions`)).body.data as Array<{ execution_id: string; status: string }>;
    return list.length && list[0]!.status === 'paused' ? list : undefined;
  }, 60_000);
  t.is(runs.length, 1, 'exactly one finding matched');
  const run = runs[0]!.execution_id;
  const steps = (await app.request('GET', `/api/playbooks/executions/${run}/steps`)).body.data as Array<{ step_id: string; status: string; output: any }>;
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['ticket:completed', 'approve:waiting']);
  const filed = readFileSync(marker, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.deepEqual(filed, [{ title: 'Directory listing at /files/', severity: filed[0].severity, asset: `${site.url}/` }]);
  t.is(receiver.requests.length, 0, 'nothing is sent before the approval');

  const approval = steps[1]!.output.approval_id;
  const decided = await app.request('POST', `/api/approvals/${approval}/approve`, { token: approver, payload: { comment: 'go' } });
  t.is(decided.statusCode, 200, decided.raw);
  const finished = await eventually(async () => {
    const v = (await app.request('GET', `/api/playbooks/executions/${run}`)).body.data;
    return ['completed', 'failed'].includes(v.status) ? v : undefined;
  }, 30_000);
  t.is(finished.status, 'completed', JSON.stringify(finished.error));
  t.is(finished.steps_completed, 3);
  const [sent] = await receiver.waitFor(1, 10_000);
  t.deepEqual(JSON.parse(sent!.body), { title: 'Directory listing at /files/', ticket: 'SEC-42' });
  const kinds = (await app.ctx.db('events').orderBy('id')).filter((e: { kind: string; data: string }) => e.kind.startsWith('playbook.') && JSON.parse(e.data).execution_id === run).map((e: { kind: string }) => e.kind);
  t.deepEqual(kinds, ['playbook.started', 'playbook.completed']);
  t.is(existsSync(marker) && readFileSync(marker, 'utf8').trim().split('\n').length, 1, 'the ticket was opened once');
});
