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

/** Past the body's depth limit (core/http/body-depth.ts) the general guard answers first, naming its own limit. */
const BODY_LIMIT = /nests objects and arrays deeper than 64 levels/;

for (const levels of [20, 3000, 10_000]) {
  test(`a playbook condition with "not" nested ${levels} deep is a 400 naming the limit`, async (t) => {
    const limit = levels < 50 ? /"not" deeper than \d+ levels/ : BODY_LIMIT;
    const trigger = await postRaw('/api/playbooks', `{"name":"not-trigger-${levels}","version":"1.0.0","trigger":{"event":"finding.new","conditions":{"finding.title":${nestedNot(levels)}}},"steps":[{"id":"a","type":"condition","if":{"parameters.x":1}}]}`);
    refused(t, trigger, limit);
    const step = await postRaw('/api/playbooks', `{"name":"not-step-${levels}","version":"1.0.0","trigger":{"event":"manual"},"steps":[{"id":"a","type":"condition","if":{"parameters.x":${nestedNot(levels)}}}]}`);
    refused(t, step, limit);
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

for (const levels of [50, 5000, 50_000]) {
  test(`a playbook step's parameters nested ${levels} deep are a 400 naming the limit`, async (t) => {
    const value = `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
    const res = await postRaw('/api/playbooks', `{"name":"deep-params-${levels}","version":"1.0.0","trigger":{"event":"manual"},"steps":[{"id":"a","type":"action","action_ref":"x","parameters":{"v":${value}}}]}`);
    refused(t, res, levels <= 50 ? /nest deeper than \d+ levels/ : BODY_LIMIT);
  });
}

// The general guard at the HTTP edge (core/http/body-depth.ts): any JSON body nested deeper
// than its limit is a 400 naming it, before a validator, a scrubber or JSON.stringify recurses.
const deepArray = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
const deepObject = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
let assetId: Promise<string> | undefined;
for (const [what, url, body] of [
  ['a finding\'s evidence', '/api/findings', (v: string, id: string) => `{"asset_id":"${id}","title":"deep","cvss_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H","evidence":{"url":${v}}}`],
  ['an asset\'s metadata', '/api/assets', (v: string, _id: string) => `{"name":"198.51.100.78","type":"ip","metadata":{"deep":${v}}}`],
  ['a webhook\'s filters', '/api/webhooks', (v: string, _id: string) => `{"name":"deep","url":"https://hooks.example.com/x","events":["finding.new"],"filters":{"exclude":${v}}}`],
] as const) {
  test(`${what} nested 10,000 deep (arrays, then objects) is a 400 naming the body's depth limit`, async (t) => {
    const id = await (assetId ??= t0.request('POST', '/api/assets', { token, payload: { name: '198.51.100.77', type: 'ip' } }).then((r) => r.body.data.id));
    refused(t, await postRaw(url, body(deepArray(10_000), id)), BODY_LIMIT);
    refused(t, await postRaw(url, body(deepObject(10_000), id)), BODY_LIMIT);
  });
}

test('a body at the depth limit passes the guard (the route answers as it would); one level more is refused', async (t) => {
  // 64 levels in all: the body object, metadata, and 62 more.
  const res = await postRaw('/api/assets', `{"name":"198.51.100.79","type":"ip","metadata":${deepObject(62).replace('1', '{}')}}`);
  t.not(res.statusCode, 500, res.raw.slice(0, 300));
  t.notRegex(res.raw, /deeper than 64 levels/);
  refused(t, await postRaw('/api/assets', `{"name":"198.51.100.79","type":"ip","metadata":${deepObject(63).replace('1', '{}')}}`), BODY_LIMIT);
});

test('a streamed JSON body (assets in bulk) with a value 10,000 deep refuses that row, never a 500', async (t) => {
  // The bulk route reads its own stream (the edge check sees no parsed body) and answers per row.
  const res = await postRaw('/api/assets/bulk', `{"assets":[{"name":${deepArray(10_000)},"type":"ip"},{"name":"198.51.100.80","type":"ip","tags":${deepObject(10_000)}}]}`);
  t.is(res.statusCode, 200, res.raw.slice(0, 300));
  t.is(res.body.data.failed, 2, res.raw.slice(0, 300));
});
