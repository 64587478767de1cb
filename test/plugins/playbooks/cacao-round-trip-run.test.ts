// CACAO v2 round trip, run for real: a playbook is run, exported, imported into another
// tenant and run there; both runs take the same steps and send the same requests.
import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';

let app: TestApp;
let receiver: HttpsReceiver;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  receiver = await startHttpsReceiver();
  receiver.respond(() => ({ status: 200, body: '{"blocked":true}' }));
  app = await createTestApp({ outbound: { caCerts: [ca.certPem] }, executors: { pollIntervalMs: 20 }, playbooks: { pollIntervalMs: 20 } });
  await app.app.start();
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
});

async function call(token: string, method: string, url: string, payload?: unknown) {
  const res = await app.request(method, url, { token, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.raw}`);
  return res.body;
}

async function runToEnd(token: string, playbookId: string) {
  const id = (await call(token, 'POST', `/api/playbooks/${playbookId}/run`, { parameters: { ip: '198.51.100.23' } })).data.execution_id;
  const run = await eventually(async () => {
    const v = (await call(token, 'GET', `/api/playbooks/executions/${id}`)).data;
    return ['completed', 'failed', 'cancelled'].includes(v.status) ? v : undefined;
  }, 30_000);
  const steps = (await call(token, 'GET', `/api/playbooks/executions/${id}/steps`)).data as Array<{ step_id: string; type: string; status: string; output: any }>;
  return { run, steps };
}

test('export → import into another tenant → the imported playbook runs the same steps with the same parameters', async (t) => {
  const a = await app.tenant();
  const block = (await call(a.token, 'POST', '/api/actions', {
    name: 'block-ip', type: 'webhook', executor: 'webhook', parameters: [{ name: 'ip', type: 'string', required: true }],
    config: { url: `${receiver.origin}/block`, method: 'POST', headers: {}, body_template: '{"ip": "{{ ip }}"}' },
  })).data.id;
  await call(a.token, 'POST', '/api/actions', { name: 'summarise', type: 'script', executor: 'local', parameters: [{ name: 'ip', type: 'string', required: true }], config: { source: 'return { summary: "blocked " + params.ip };' } });
  const pb = (await call(a.token, 'POST', '/api/playbooks', {
    name: 'contain-ip', version: '2.0.0', trigger: { event: 'manual', conditions: {} }, parameters: { ip: '192.0.2.1', n: 3 },
    steps: [
      { id: 'gate', name: 'Enough?', type: 'condition', if: { 'parameters.n': { gte: 2 } }, on_true: 'block', on_false: null },
      { id: 'block', name: 'Block', type: 'action', action_ref: block, parameters: { ip: '{{ parameters.ip }}' }, on_success: 'sum' },
      { id: 'sum', name: 'Summarise', type: 'action', action_ref: 'summarise', parameters: { ip: '{{ steps.block.output.body.blocked }} {{ parameters.ip }}' } },
    ],
  })).data.id;
  const original = await runToEnd(a.token, pb);
  t.is(original.run.status, 'completed', JSON.stringify(original.run.error));

  const doc = await call(a.token, 'GET', `/api/playbooks/${pb}/export?format=cacao_v2`);
  const b = await app.tenant();
  const imported = (await call(b.token, 'POST', '/api/playbooks/import', doc)).data;
  const copy = await runToEnd(b.token, imported.playbook.id);
  t.is(copy.run.status, 'completed', JSON.stringify(copy.run.error));

  const shape = (s: typeof original.steps) => s.map((x) => ({ id: x.step_id, type: x.type, status: x.status }));
  t.deepEqual(shape(copy.steps), shape(original.steps));
  t.deepEqual(shape(copy.steps).map((s) => s.id), ['gate', 'block', 'sum']);
  const sent = receiver.requests.map((r) => JSON.parse(r.body));
  t.deepEqual(sent, [{ ip: '198.51.100.23' }, { ip: '198.51.100.23' }], 'both runs sent the same request');
  const summaries = [original, copy].map((r) => r.steps.find((s) => s.step_id === 'sum')!.output.output);
  t.deepEqual(summaries, [{ result: { summary: 'blocked true 198.51.100.23' } }, { result: { summary: 'blocked true 198.51.100.23' } }]);
});
