import test from 'ava';
import type { OutboundHttpClient } from '../../../core/outbound/http-client.ts';
import type { ExecutorHttp, Sandbox } from '../../../core/plugin-api/index.ts';
import { mockExecutorContext } from '../../../core/plugins/mock-executor-context.ts';

// The executor handle is the platform's outbound client as it is: the engine hands it in unwrapped.
const outboundIsExecutorHttp = (client: OutboundHttpClient): ExecutorHttp => client;
void outboundIsExecutorHttp;

test('records HTTP calls and answers them with the responder, defaults filled in', async (t) => {
  const ctx = mockExecutorContext({ http: (req) => ({ statusCode: req.method === 'DELETE' ? 204 : 201, body: 'ok' }) });
  const res = await ctx.http.request({ url: 'https://api.example/block', method: 'POST', headers: { 'x-a': '1' }, body: '{}' });
  t.deepEqual(res, { statusCode: 201, headers: {}, body: 'ok', truncated: false, durationMs: 0 });
  await ctx.http.request({ url: 'https://api.example/block/1', method: 'DELETE' });
  t.deepEqual(ctx.httpCalls.map((c) => `${c.method} ${c.url}`), ['POST https://api.example/block', 'DELETE https://api.example/block/1']);
  t.deepEqual(ctx.httpCalls[0]!.headers, { 'x-a': '1' });
});

test('without a responder HTTP rejects: a unit test makes no network calls', async (t) => {
  const ctx = mockExecutorContext();
  await t.throwsAsync(ctx.http.request({ url: 'https://api.example/', method: 'GET' }), { message: /no HTTP responder in this mock context \(request to https:\/\/api\.example\/\)/ });
  t.is(ctx.httpCalls.length, 1);
});

test('serves the given secrets, refuses unknown ones, and redacts secret values from logs while reporting the leak', async (t) => {
  const ctx = mockExecutorContext({ secrets: { api_key: 'k-123' }, params: { password: 'hunter2', host: 'h' }, secretParams: ['password'] });
  t.is(await ctx.secrets.get('api_key'), 'k-123');
  await t.throwsAsync(ctx.secrets.get('nope'), { message: 'secret nope is not set' });
  t.deepEqual(ctx.secretReads, ['api_key', 'nope']);
  ctx.log('INFO', 'calling h');
  ctx.log('DEBUG', 'key=k-123 pass=hunter2 again k-123');
  t.deepEqual(ctx.logs, [
    { level: 'INFO', message: 'calling h' },
    { level: 'DEBUG', message: 'key=[redacted] pass=[redacted] again [redacted]' },
  ]);
  t.deepEqual(ctx.secretLeaks, ['api_key', 'password']);
});

test('the real sandbox by default, or an injected one; flags and settings as given', async (t) => {
  const real = mockExecutorContext({ dryRun: true, sandboxMode: true, config: { url: 'u' }, target: 'ast_1', timeoutMs: 5 });
  t.like(real, { dryRun: true, sandboxMode: true, target: 'ast_1', timeoutMs: 5 });
  t.deepEqual(real.config, { url: 'u' });
  t.true(Object.isFrozen(real.params));
  t.deepEqual(await real.sandbox.run('return input * 2;', { input: 21 }), { result: 42, logs: [] });
  const runs: string[] = [];
  const fake: Sandbox = { run: async (code) => (runs.push(code), { result: 'stub', logs: ['x'] }) };
  const injected = mockExecutorContext({ sandbox: fake });
  t.deepEqual(await injected.sandbox.run('return 1;'), { result: 'stub', logs: ['x'] });
  t.deepEqual(runs, ['return 1;']);
});
