// Issue 25, item 7: deep nesting answered 500 (a stack overflow) in a recursive validator
// or parser. Each is now bounded and answers 400 naming its limit.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { errorShapeProblem } from './error-shape.ts';

const EXAMPLE = JSON.parse(readFileSync(new URL('../../core/playbooks/cacao/fixtures/cacao-v2-minimal-http-api.json', import.meta.url), 'utf8'));
const END = 'end--cf833186-85f9-48b3-b769-3479e1111d3e';
const ACTION = 'action--420a2522-6aed-414b-9f8a-c07ac4447e90';

let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  token = (await t0.tenant()).token;
});
test.after.always(async () => {
  await t0?.close();
});

function refused(t: import('ava').ExecutionContext, res: { statusCode: number; raw: string; headers: Record<string, unknown>; body: any }, limit: RegExp): void {
  t.is(res.statusCode, 400, res.raw.slice(0, 300));
  t.is(errorShapeProblem(res.raw, String(res.headers['content-type'])), null);
  const messages = [res.body.error.message, ...(res.body.error.details ?? []).map((d: { message: string }) => d.message)].join(' | ');
  t.regex(messages, limit, messages.slice(0, 300));
}

/** JSON text of "x" under `levels` of "not", written as text: JSON.stringify itself overflows at 10,000. */
const nestedNot = (levels: number): string => `${'{"not":'.repeat(levels)}"x"${'}'.repeat(levels)}`;

async function postRaw(url: string, json: string) {
  const res = await t0.server.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: json });
  let body: any = null;
  try { body = JSON.parse(res.payload); } catch { /* not JSON: the shape check reports it */ }
  return { statusCode: res.statusCode, raw: res.payload, headers: res.headers as Record<string, unknown>, body };
}

for (const levels of [3000, 10_000]) {
  test(`a playbook condition with "not" nested ${levels} deep is a 400 naming the limit`, async (t) => {
    const trigger = await postRaw('/api/playbooks', `{"name":"not-trigger-${levels}","version":"1.0.0","trigger":{"event":"finding.new","conditions":{"finding.title":${nestedNot(levels)}}},"steps":[{"id":"a","type":"condition","if":{"parameters.x":1}}]}`);
    refused(t, trigger, /"not" deeper than \d+ levels/);
    const step = await postRaw('/api/playbooks', `{"name":"not-step-${levels}","version":"1.0.0","trigger":{"event":"manual"},"steps":[{"id":"a","type":"condition","if":{"parameters.x":${nestedNot(levels)}}}]}`);
    refused(t, step, /"not" deeper than \d+ levels/);
  });
}

test('a CACAO document with 4,000 chained if-condition steps is a 400 naming the limit', async (t) => {
  const doc = structuredClone(EXAMPLE);
  const ids = Array.from({ length: 4000 }, (_, i) => `if-condition--00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  doc.workflow[ACTION].on_success = ids[0];
  delete doc.workflow[ACTION].on_failure;
  ids.forEach((id, i) => {
    doc.workflow[id] = { type: 'if-condition', condition: "[__blocked_ip__:value = '1.2.3.4']", on_true: END, on_completion: ids[i + 1] ?? END };
  });
  refused(t, await t0.request('POST', '/api/playbooks/import?dry_run=true', { token, payload: doc }), /more than \d+ steps one after the other/);
});

test('a CACAO condition with 20,000 parentheses is a 400 naming the limit', async (t) => {
  const doc = structuredClone(EXAMPLE);
  const cond = 'if-condition--00000000-0000-4000-8000-000000000001';
  doc.workflow[ACTION].on_success = cond;
  delete doc.workflow[ACTION].on_failure;
  doc.workflow[cond] = { type: 'if-condition', condition: `${'('.repeat(20_000)}__blocked_ip__:value = '1.2.3.4'${')'.repeat(20_000)}`, on_true: END, on_completion: END };
  refused(t, await t0.request('POST', '/api/playbooks/import?dry_run=true', { token, payload: doc }), /parentheses deeper than \d+ levels/);
});

for (const levels of [5000, 50_000]) {
  test(`a playbook step's parameters nested ${levels} deep are a 400 naming the limit`, async (t) => {
    const value = `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
    const res = await postRaw('/api/playbooks', `{"name":"deep-params-${levels}","version":"1.0.0","trigger":{"event":"manual"},"steps":[{"id":"a","type":"action","action_ref":"x","parameters":{"v":${value}}}]}`);
    refused(t, res, /nest deeper than \d+ levels/);
  });
}
