import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import remote from '../../../executors/remote/index.ts';

const TARGET = 'https://soar.example/api/block';

function ctxWith(o: MockExecutorOptions = {}) {
  return mockExecutorContext({
    params: { ip: '203.0.113.9', reason: 'brute force', api_key: 'k-canary-77' },
    secretParams: ['api_key'],
    config: { target: TARGET },
    executionId: 'exe_01',
    attempt: 2,
    http: () => ({ statusCode: 200, body: '{"blocked":true,"rule":42}' }),
    ...o,
  });
}

test('without input_mapping every parameter is POSTed as JSON; the JSON answer is the output', async (t) => {
  const ctx = ctxWith();
  const result = await remote.run(ctx);
  t.deepEqual(result, { status: 'completed', output: { blocked: true, rule: 42 } });
  t.is(ctx.httpCalls.length, 1);
  const call = ctx.httpCalls[0]!;
  t.like(call, { url: TARGET, method: 'POST', maxResponseBytes: 1024 * 1024, timeoutMs: 30_000 });
  t.deepEqual(JSON.parse(call.body!), { ip: '203.0.113.9', reason: 'brute force', api_key: 'k-canary-77' });
  t.like(call.headers, { 'content-type': 'application/json', 'idempotency-key': 'exe_01', 'x-rampart-attempt': '2' });
  t.deepEqual(ctx.secretLeaks, []);
});

test('input_mapping renames, adds constants and the asset, and leaves unmapped parameters out unless asked', async (t) => {
  const asset = { id: 'ast_1', type: 'ip' as const, value: '203.0.113.9', name: 'edge' };
  const mapping = { fields: { address: 'ip', why: { param: 'reason' }, mode: { value: { hard: true } }, host: 'target', missing: 'not_given' } };
  const ctx = ctxWith({ config: { target: TARGET, method: 'put', input_mapping: mapping }, asset });
  await remote.run(ctx);
  t.is(ctx.httpCalls[0]!.method, 'PUT');
  t.deepEqual(JSON.parse(ctx.httpCalls[0]!.body!), { address: '203.0.113.9', why: 'brute force', mode: { hard: true }, host: '203.0.113.9' });

  const all = ctxWith({ config: { target: TARGET, input_mapping: { fields: { address: 'ip' }, include_unmapped: true } } });
  await remote.run(all);
  t.deepEqual(JSON.parse(all.httpCalls[0]!.body!), { address: '203.0.113.9', reason: 'brute force', api_key: 'k-canary-77' });
});

test('a non-object JSON answer is wrapped as {result}; a text answer is {body}; an empty one is {}', async (t) => {
  t.deepEqual((await remote.run(ctxWith({ http: () => ({ body: '[1,2]' }) }))).output, { result: [1, 2] });
  t.deepEqual((await remote.run(ctxWith({ http: () => ({ body: 'done' }) }))).output, { body: 'done' });
  t.deepEqual((await remote.run(ctxWith({ http: () => ({ statusCode: 204, body: '' }) }))).output, {});
});

test('a non-2xx answer fails with http_<status> and at most 2 KiB of the body', async (t) => {
  const result = await remote.run(ctxWith({ http: () => ({ statusCode: 503, body: 'x'.repeat(10_000) }) }));
  t.is(result.status, 'failed');
  t.is(result.error!.code, 'http_503');
  t.true(result.error!.message.includes('503'));
  t.true(result.error!.message.length < 2200);
  t.is(result.output.status_code, 503);
  t.true(String(result.output.body).length <= 2049);
  const redirect = await remote.run(ctxWith({ http: () => ({ statusCode: 302, body: '' }) }));
  t.is(redirect.error!.code, 'http_302');
});

test('a 2xx answer cut at the byte limit fails response_too_large rather than returning half a document', async (t) => {
  const result = await remote.run(ctxWith({ http: () => ({ body: '{"a":', truncated: true }) }));
  t.like(result, { status: 'failed', error: { code: 'response_too_large' } });
});

test('a dry run sends nothing and returns the exact request as its plan', async (t) => {
  const ctx = ctxWith({ dryRun: true, config: { target: TARGET, input_mapping: { fields: { address: 'ip' } } } });
  const result = await remote.run(ctx);
  t.is(ctx.httpCalls.length, 0);
  t.deepEqual(result.plan, {
    executor: 'remote',
    request: {
      url: TARGET,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': 'exe_01', 'x-rampart-attempt': '2' },
      body: { address: '203.0.113.9' },
    },
  });
  t.is(result.status, 'completed');
});

test('a bad config fails invalid_config without sending: no target, a GET, a malformed mapping', async (t) => {
  for (const config of [{}, { target: 'ftp://x.example/' }, { target: TARGET, method: 'GET' }, { target: TARGET, input_mapping: { fields: { a: 3 } } }, { target: TARGET, input_mapping: { fieldz: {} } }]) {
    const ctx = ctxWith({ config });
    const result = await remote.run(ctx);
    t.like(result, { status: 'failed', error: { code: 'invalid_config' } }, JSON.stringify(config));
    t.is(ctx.httpCalls.length, 0);
  }
});

test('no answer: the client error code is the failure code; a timeout is timed_out', async (t) => {
  const refused = Object.assign(new Error('Destination refused'), { code: 'destination_refused' });
  t.like(await remote.run(ctxWith({ http: () => Promise.reject(refused) })), { status: 'failed', error: { code: 'destination_refused' } });
  t.like(await remote.run(ctxWith({ http: () => Promise.reject(new Error('boom')) })), { status: 'failed', error: { code: 'unreachable' } });
  const slow = Object.assign(new Error('No complete answer'), { code: 'timeout' });
  t.like(await remote.run(ctxWith({ http: () => Promise.reject(slow) })), { status: 'timed_out', error: { code: 'timeout' } });
  const stop = new AbortController();
  stop.abort(new DOMException('cancelled', 'AbortError'));
  const aborted = Object.assign(new Error('aborted'), { code: 'aborted' });
  t.like(await remote.run(ctxWith({ signal: stop.signal, http: () => Promise.reject(aborted) })), { status: 'failed', error: { code: 'aborted' } });
});
