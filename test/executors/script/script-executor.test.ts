import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import { validateOptions } from '../../../core/plugins/options-validator.ts';
import script from '../../../executors/script/index.ts';

const run = (source: string, o: MockExecutorOptions = {}) => {
  const ctx = mockExecutorContext({ timeoutMs: 2000, ...o, config: { source, ...(o.config ?? {}) } });
  return script.run(ctx).then((result) => ({ result, ctx }));
};

test('the manifest: a script executor needing exec:sandbox and net:outbound, settings declared with defaults', (t) => {
  t.is(script.name, 'script');
  t.is(script.executorKind, 'script');
  t.is(script.apiVersion, '^1.6.0');
  t.deepEqual(script.capabilities, ['exec:sandbox', 'net:outbound']);
  t.deepEqual(validateOptions(script.options, {}), { memoryMb: 64, maxOutputBytes: 1_048_576, maxLogLines: 1000, maxHttpCalls: 50, maxHttpBytes: 1_048_576 });
});

test('the return value becomes output.result; params are a deep-frozen copy', async (t) => {
  const { result } = await run(
    `'use strict';
     let frozen = true;
     try { params.ip = 'x'; frozen = false; } catch {}
     try { params.nested.list.push(3); frozen = false; } catch {}
     return { blocked: params.ip, sum: params.nested.list.reduce((a, b) => a + b, 0), frozen, deep: Object.isFrozen(params.nested.list) };`,
    { params: { ip: '10.0.0.1', nested: { list: [1, 2] } } },
  );
  t.deepEqual(result, { status: 'completed', output: { result: { blocked: '10.0.0.1', sum: 3, frozen: true, deep: true } } });
  t.deepEqual((await run('return;')).result.output, { result: null });
});

test('log(level, message) writes log lines: unknown levels are INFO, non-strings are JSON, lines are bounded', async (t) => {
  const { result, ctx } = await run(
    `log('WARN', 'careful'); log('LOUD', 'shout'); log('DEBUG', { a: 1 }); log('ERROR', 'x'.repeat(10000));
     for (let i = 0; i < 10; i++) log('INFO', 'n' + i);
     console.log('from console');
     return 1;`,
    { settings: { maxLogLines: 6 } },
  );
  t.is(result.status, 'completed');
  t.deepEqual(ctx.logs.slice(0, 3), [
    { level: 'WARN', message: 'careful' },
    { level: 'INFO', message: 'shout' },
    { level: 'DEBUG', message: '{"a":1}' },
  ]);
  t.is(ctx.logs[3]!.message.length, 4000);
  t.deepEqual(ctx.logs.slice(4, 6).map((l) => l.message), ['n0', 'n1']);
  t.deepEqual(ctx.logs[6], { level: 'WARN', message: 'more than 6 log lines: the rest are dropped' });
  t.deepEqual(ctx.logs[7], { level: 'INFO', message: 'from console' });
  t.is(ctx.logs.length, 8);
});

test('http goes through ctx.http with a bounded response, and its failures are catchable errors', async (t) => {
  const { result, ctx } = await run(
    `const r = await http({ url: 'https://api.example.test/block', method: 'post', headers: { 'x-key': params.key }, body: { ip: params.ip } });
     let refused;
     try { await http({ url: 'http://127.0.0.1/admin' }); } catch (e) { refused = e.message; }
     return { status: r.status, body: JSON.parse(r.body), type: r.headers['content-type'], refused };`,
    {
      params: { ip: '10.0.0.1', key: 'k-1' },
      http: (req) => {
        if (req.url.includes('127.0.0.1')) throw new Error('destination 127.0.0.1 is not allowed');
        return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ echoed: req.body }) };
      },
    },
  );
  t.is(result.status, 'completed', JSON.stringify(result.error));
  t.deepEqual(result.output.result, { status: 201, body: { echoed: '{"ip":"10.0.0.1"}' }, type: 'application/json', refused: 'destination 127.0.0.1 is not allowed' });
  t.like(ctx.httpCalls[0], { url: 'https://api.example.test/block', method: 'POST', headers: { 'x-key': 'k-1' }, maxResponseBytes: 1_048_576 });
});

test('http calls per run are bounded', async (t) => {
  const { result, ctx } = await run(`for (let i = 0; i < 5; i++) await http({ url: 'https://a.test/' + i }); return 'unreachable';`, {
    settings: { maxHttpCalls: 3 },
    http: () => ({ statusCode: 204 }),
  });
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'script_error');
  t.regex(result.error!.message, /more than 3 calls/);
  t.is(ctx.httpCalls.length, 3);
});

test('in sandbox runs there is no http at all', async (t) => {
  const { result, ctx } = await run(`return await http({ url: 'https://a.test/' });`, { sandboxMode: true, http: () => ({ statusCode: 200 }) });
  t.is(result.status, 'failed');
  t.regex(result.error!.message, /http is not available in sandbox runs/);
  t.deepEqual(ctx.httpCalls, []);
});

test('a dry run compiles the source in an isolate without calling it, and describes the run', async (t) => {
  const source = `log('INFO', 'ran'); await http({ url: 'https://a.test' }); return 1;`;
  const { result, ctx } = await run(source, { dryRun: true, params: { ip: '10.0.0.1' }, sandboxMode: true });
  t.is(result.status, 'completed');
  t.deepEqual(result.plan, { executor: 'script', source_bytes: Buffer.byteLength(source), params: { ip: '10.0.0.1' }, http_available: false, timeout_ms: 2000, memory_mb: 64 });
  t.deepEqual(ctx.logs, [], 'nothing ran');
  const broken = await run('return (;', { dryRun: true });
  t.is(broken.result.status, 'failed');
  t.is(broken.result.error?.code, 'script_error');
  t.regex(broken.result.error!.message, /does not compile: SyntaxError/);
});

test('a missing source, a thrown error, and a non-JSON return value each fail clearly', async (t) => {
  const missing = await script.run(mockExecutorContext({ config: {} }));
  t.is(missing.error?.code, 'invalid_config');
  const thrown = await run(`throw new TypeError('bad input ' + params.ip);`, { params: { ip: '1.2.3.4' } });
  t.deepEqual(thrown.result.error, { code: 'script_error', message: 'TypeError: bad input 1.2.3.4' });
  const fn = await run(`return { f: () => 1 };`);
  t.is(fn.result.error?.code, 'invalid_value');
  const cycle = await run(`const a = {}; a.self = a; return a;`);
  t.is(cycle.result.error?.code, 'invalid_value');
});

test('an abort of the run signal answers cancelled', async (t) => {
  const controller = new AbortController();
  const pending = run(`await new Promise(() => {});`, { signal: controller.signal, timeoutMs: 1000 });
  setTimeout(() => controller.abort('cancelled by user'), 50);
  const { result } = await pending;
  t.deepEqual(result.error, { code: 'cancelled', message: 'the run was cancelled' });
});
