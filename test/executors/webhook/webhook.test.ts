import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import webhook from '../../../executors/webhook/index.ts';

const CONFIG = {
  url: 'https://hooks.example/alert/{{ ip }}?source={{ source }}',
  method: 'POST',
  headers: { Authorization: 'Bearer {{ token }}', 'X-Count': '{{ count }}' },
  body_template: '{"text": "Blocked {{ ip }}: {{ reason }}", "count": {{ count }}, "tags": {{ tags }}}',
};

function ctxWith(o: MockExecutorOptions = {}) {
  return mockExecutorContext({
    params: { ip: '203.0.113.9', source: 'a&b', reason: 'said "hi"\nthen left', count: 3, tags: ['ssh', 'brute'], token: 'tok-canary-55' },
    secretParams: ['token'],
    config: CONFIG,
    http: () => ({ statusCode: 200, body: '{"ok":true}' }),
    ...o,
  });
}

test('renders the URL, headers and JSON body; the answer is {status_code, body}', async (t) => {
  const ctx = ctxWith();
  const result = await webhook.run(ctx);
  t.deepEqual(result, { status: 'completed', output: { status_code: 200, body: { ok: true } } });
  const call = ctx.httpCalls[0]!;
  t.is(call.url, 'https://hooks.example/alert/203.0.113.9?source=a%26b');
  t.is(call.method, 'POST');
  t.deepEqual(call.headers, { Authorization: 'Bearer tok-canary-55', 'X-Count': '3', 'content-type': 'application/json' });
  t.deepEqual(JSON.parse(call.body!), { text: 'Blocked 203.0.113.9: said "hi"\nthen left', count: 3, tags: ['ssh', 'brute'] });
  // The log line names the host only; the token never reaches the log.
  t.deepEqual(ctx.logs, [{ level: 'INFO', message: 'POST hooks.example: HTTP 200' }]);
  t.deepEqual(ctx.secretLeaks, []);
});

test('a text content type renders the body as text; no body_template sends no body', async (t) => {
  const text = ctxWith({ config: { ...CONFIG, headers: { 'Content-Type': 'text/plain' }, body_template: 'ip={{ ip }} "{{ reason }}"' } });
  await webhook.run(text);
  t.is(text.httpCalls[0]!.body, 'ip=203.0.113.9 "said "hi"\nthen left"');
  const bare = ctxWith({ config: { url: 'https://hooks.example/ping', method: 'get' } });
  t.like(await webhook.run(bare), { status: 'completed' });
  t.is(bare.httpCalls[0]!.method, 'GET');
  t.is(bare.httpCalls[0]!.body, undefined);
});

test('form and XML bodies escape each value: a finding title cannot add a parameter or an element', async (t) => {
  const params = { title: 'x&role=admin', ip: '203.0.113.9', reason: '</note><role>admin</role><note a="1">', source: 's', token: 't', count: 1 };
  const form = ctxWith({ params, config: { ...CONFIG, headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' }, body_template: 'title={{ title }}&ip={{ ip }}' } });
  t.like(await webhook.run(form), { status: 'completed' });
  t.is(form.httpCalls[0]!.body, 'title=x%26role%3Dadmin&ip=203.0.113.9');
  t.deepEqual([...new URLSearchParams(form.httpCalls[0]!.body!)], [['title', 'x&role=admin'], ['ip', '203.0.113.9']]);
  for (const type of ['application/xml', 'text/xml', 'application/soap+xml']) {
    const xml = ctxWith({ params, config: { ...CONFIG, headers: { 'Content-Type': type }, body_template: '<alert ip="{{ ip }}"><note>{{ reason }}</note><t a=\'{{ title }}\'/></alert>' } });
    t.like(await webhook.run(xml), { status: 'completed' });
    t.is(xml.httpCalls[0]!.body, '<alert ip="203.0.113.9"><note>&lt;/note&gt;&lt;role&gt;admin&lt;/role&gt;&lt;note a=&quot;1&quot;&gt;</note><t a=\'x&amp;role=admin\'/></alert>');
  }
  const control = ctxWith({ params: { ...params, reason: 'bell\u0007' }, config: { ...CONFIG, headers: { 'Content-Type': 'application/xml' }, body_template: '<n>{{ reason }}</n>' } });
  t.like((await webhook.run(control)).error, { code: 'invalid_template' });
  t.is(control.httpCalls.length, 0);
});

test('a body template for a content type it cannot escape for is refused, not filled raw', async (t) => {
  const html = ctxWith({ config: { ...CONFIG, headers: { 'Content-Type': 'text/html' }, body_template: '<p>{{ reason }}</p>' } });
  t.like((await webhook.run(html)).error, { code: 'invalid_config' });
  t.is(html.httpCalls.length, 0);
});

test('a missing variable fails naming it and sends nothing', async (t) => {
  const ctx = ctxWith({ config: { ...CONFIG, body_template: '{"a": "{{ ghost }}"}' } });
  const result = await webhook.run(ctx);
  t.deepEqual(result.error, { code: 'template_variable_missing', message: 'template_variable_missing: ghost' });
  t.is(ctx.httpCalls.length, 0);
});

test('a header value with CR/LF fails invalid_header_value and sends nothing', async (t) => {
  const ctx = ctxWith({ params: { ip: '1.2.3.4', source: 's', reason: 'r', count: 1, tags: [], token: 'x\r\nX-Injected: 1' } });
  const result = await webhook.run(ctx);
  t.is(result.error!.code, 'invalid_header_value');
  t.false(result.error!.message.includes('Injected'));
  t.is(ctx.httpCalls.length, 0);
});

test('a body template that does not render to JSON fails invalid_template', async (t) => {
  const result = await webhook.run(ctxWith({ config: { ...CONFIG, body_template: '{"a": {{ ip }} {{ ip }}}' } }));
  t.is(result.error!.code, 'invalid_template');
});

test('bad configs fail invalid_config: reserved or malformed header names, a GET with a body, an unknown method', async (t) => {
  for (const config of [
    { ...CONFIG, headers: { Host: 'evil.example' } },
    { ...CONFIG, headers: { 'Bad Header': 'x' } },
    { ...CONFIG, method: 'GET' },
    { ...CONFIG, method: 'TRACE' },
    { ...CONFIG, url: undefined },
  ]) {
    const ctx = ctxWith({ config });
    t.like(await webhook.run(ctx), { status: 'failed', error: { code: 'invalid_config' } }, JSON.stringify(config));
    t.is(ctx.httpCalls.length, 0);
  }
});

test('a dry run sends nothing and plans the rendered request with the real values', async (t) => {
  const ctx = ctxWith({ dryRun: true });
  const result = await webhook.run(ctx);
  t.is(ctx.httpCalls.length, 0);
  t.deepEqual(result.plan, {
    executor: 'webhook',
    request: {
      url: 'https://hooks.example/alert/203.0.113.9?source=a%26b',
      method: 'POST',
      headers: { Authorization: 'Bearer tok-canary-55', 'X-Count': '3', 'content-type': 'application/json' },
      body: { text: 'Blocked 203.0.113.9: said "hi"\nthen left', count: 3, tags: ['ssh', 'brute'] },
    },
  });
});

test('non-2xx fails http_<status>; a text answer is kept as bounded text', async (t) => {
  t.like(await webhook.run(ctxWith({ http: () => ({ statusCode: 401, body: 'no' }) })), { status: 'failed', error: { code: 'http_401' }, output: { status_code: 401, body: 'no' } });
  const big = await webhook.run(ctxWith({ http: () => ({ statusCode: 202, body: 'é'.repeat(40_000) }) }));
  t.is(big.output.status_code, 202);
  t.true(big.output.body_truncated as boolean);
  t.true(Buffer.byteLength(big.output.body as string) <= 64 * 1024);
  t.deepEqual((await webhook.run(ctxWith({ http: () => ({ statusCode: 204, body: '' }) }))).output, { status_code: 204, body: null });
});
