import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import notification from '../../../executors/notification/index.ts';

const SMTP = { host: '127.0.0.1', port: 2525, from: 'rampart@example.test' };
const EMAIL = { channel: 'email', to: ['{{ owner }}'], subject: 'Alert {{ title }}', body_template: '{{ title }}' };

const ctxWith = (o: MockExecutorOptions = {}) =>
  mockExecutorContext({ params: { owner: 'o@example.test', title: 'x' }, config: EMAIL, settings: { smtp: SMTP }, dryRun: true, ...o });

test('a subject that would carry CR/LF fails invalid_header_value', async (t) => {
  const result = await notification.run(ctxWith({ params: { owner: 'o@example.test', title: 'x\r\nBcc: attacker@evil.test' } }));
  t.like(result, { status: 'failed', error: { code: 'invalid_header_value' } });
  t.false(result.error!.message.includes('attacker'));
});

test('a recipient that is not one bare address fails invalid_address (no smuggled recipients)', async (t) => {
  for (const owner of ['a@example.test, attacker@evil.test', 'Name <a@example.test>', 'not-an-address', 'a@example.test\nBcc: x@evil.test']) {
    const result = await notification.run(ctxWith({ params: { owner, title: 'x' } }));
    t.is(result.status, 'failed', owner);
    t.regex(result.error!.code, /^invalid_(address|header_value)$/, owner);
  }
});

test('a missing variable fails naming it', async (t) => {
  t.deepEqual((await notification.run(ctxWith({ params: { owner: 'o@example.test' } }))).error, { code: 'template_variable_missing', message: 'template_variable_missing: title' });
});

test('a bad channel or an incomplete config fails invalid_config', async (t) => {
  for (const config of [{}, { channel: 'pager' }, { ...EMAIL, to: [] }, { ...EMAIL, subject: undefined }, { channel: 'chat', text_template: 'x' }, { channel: 'chat', url: 'https://h.example/', text_template: 'x', format: 'irc' }]) {
    t.like(await notification.run(ctxWith({ config })), { status: 'failed', error: { code: 'invalid_config' } }, JSON.stringify(config));
  }
});

test('chat, Slack format: one POST of {"text"} rendered from the template; a 2xx completes', async (t) => {
  const ctx = ctxWith({
    dryRun: false,
    params: { title: 'Port 22 "open"\nnow', hook: 'https://hooks.slack.example/T1/B2/s3cr3t' },
    secretParams: ['hook'],
    config: { channel: 'chat', url: '{{ hook }}', text_template: ':rotating_light: {{ title }}' },
    http: () => ({ statusCode: 200, body: 'ok' }),
  });
  const result = await notification.run(ctx);
  t.deepEqual(result, { status: 'completed', output: { channel: 'chat', status_code: 200 } });
  const call = ctx.httpCalls[0]!;
  t.like(call, { url: 'https://hooks.slack.example/T1/B2/s3cr3t', method: 'POST', headers: { 'content-type': 'application/json' } });
  t.deepEqual(JSON.parse(call.body!), { text: ':rotating_light: Port 22 "open"\nnow' });
  t.deepEqual(ctx.secretLeaks, []);
});

test('chat, Teams format: a MessageCard; a non-2xx fails http_<status>', async (t) => {
  const ctx = ctxWith({ dryRun: false, config: { channel: 'chat', url: 'https://teams.example/webhook', text_template: 'Alert {{ title }}', format: 'teams' }, http: () => ({ statusCode: 400, body: 'Bad payload' }) });
  const result = await notification.run(ctx);
  t.like(result, { status: 'failed', error: { code: 'http_400', message: 'teams.example answered HTTP 400: Bad payload' } });
  t.deepEqual(JSON.parse(ctx.httpCalls[0]!.body!), { '@type': 'MessageCard', '@context': 'http://schema.org/extensions', text: 'Alert x' });
});

test('chat dry run: nothing is sent; the plan is the request', async (t) => {
  const ctx = ctxWith({ config: { channel: 'chat', url: 'https://hooks.example/x', text_template: 'Alert {{ title }}' } });
  const result = await notification.run(ctx);
  t.is(ctx.httpCalls.length, 0);
  t.deepEqual(result.plan, { executor: 'notification', channel: 'chat', request: { url: 'https://hooks.example/x', method: 'POST', headers: { 'content-type': 'application/json' }, body: { text: 'Alert x' } } });
});
