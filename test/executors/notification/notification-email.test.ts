// The email channel against a real SMTP server on loopback: plain SMTP, and STARTTLS
// with AUTH and a certificate from the test CA.
import test from 'ava';
import { createServer } from 'node:net';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import notification from '../../../executors/notification/index.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../_lib/smtp-receiver.ts';

let plain: SmtpReceiver;
let tls: SmtpReceiver;
let caPem: string;

test.before(async () => {
  plain = await startSmtpReceiver();
  tls = await startSmtpReceiver({ starttls: { user: 'rampart', password: 'smtp-pass-canary' } });
  caPem = (await sharedTestCertificates()).ca.certPem;
});

test.after.always(async () => {
  await plain?.close();
  await tls?.close();
});

const EMAIL = {
  channel: 'email',
  to: ['{{ owner }}', 'soc@example.test'],
  cc: ['audit@example.test'],
  subject: 'Blocked {{ ip }} on {{ target }}',
  body_template: 'Address {{ ip }} was blocked.\nReason: {{ reason }}',
};

const ctxFor = (smtp: Record<string, unknown> | undefined, o: MockExecutorOptions = {}) =>
  mockExecutorContext({
    actionType: 'notification',
    params: { owner: 'owner@example.test', ip: '203.0.113.9', reason: 'ssh brute force' },
    asset: { id: 'ast_1', type: 'domain', value: 'shop.example.test', name: 'shop' },
    config: EMAIL,
    settings: smtp ? { smtp } : {},
    ...o,
  });

test('plain SMTP: the message arrives with its recipients, subject and body', async (t) => {
  const ctx = ctxFor({ host: '127.0.0.1', port: plain.port, from: 'rampart@example.test' }, { params: { owner: 'plain@example.test', ip: '203.0.113.9', reason: 'ssh brute force' } });
  const result = await notification.run(ctx);
  t.is(result.status, 'completed', JSON.stringify(result.error));
  t.like(result.output, { channel: 'email', accepted: ['plain@example.test', 'soc@example.test', 'audit@example.test'], rejected: [] });
  t.regex(String(result.output.message_id), /^<.+@.+>$/);
  const mail = plain.messages.find((m) => m.recipients.includes('plain@example.test'))!;
  t.is(mail.from, 'rampart@example.test');
  t.deepEqual(mail.recipients, ['plain@example.test', 'soc@example.test', 'audit@example.test']);
  t.is(mail.headers.to, 'plain@example.test, soc@example.test');
  t.is(mail.headers.cc, 'audit@example.test');
  t.is(mail.headers.subject, 'Blocked 203.0.113.9 on shop.example.test');
  t.is(mail.body.trim().replace(/\r\n/g, '\n'), 'Address 203.0.113.9 was blocked.\nReason: ssh brute force');
});

test('STARTTLS with AUTH: the session is secured and authenticated', async (t) => {
  const smtp = { host: '127.0.0.1', port: tls.port, starttls: true, user: 'rampart', password: 'smtp-pass-canary', from: 'rampart@example.test', tls: { ca: caPem } };
  const ctx = ctxFor(smtp, { params: { owner: 'tls@example.test', ip: '198.51.100.7', reason: 'scan' } });
  const result = await notification.run(ctx);
  t.is(result.status, 'completed', JSON.stringify(result.error));
  const mail = tls.messages.find((m) => m.recipients.includes('tls@example.test'))!;
  t.true(mail.secure);
  t.is(mail.user, 'rampart');
  t.is(mail.headers.subject, 'Blocked 198.51.100.7 on shop.example.test');
  t.false(ctx.logs.some((l) => l.message.includes('smtp-pass-canary')));
});

test('a wrong password fails smtp_auth_failed without echoing it', async (t) => {
  const smtp = { host: '127.0.0.1', port: tls.port, starttls: true, user: 'rampart', password: 'wrong-canary', from: 'r@example.test', tls: { ca: caPem } };
  const result = await notification.run(ctxFor(smtp));
  t.like(result, { status: 'failed', error: { code: 'smtp_auth_failed' } });
  t.false(JSON.stringify(result).includes('wrong-canary'));
});

test('an untrusted certificate fails; nothing is sent in the clear when STARTTLS is required', async (t) => {
  const smtp = { host: '127.0.0.1', port: tls.port, starttls: true, user: 'rampart', password: 'smtp-pass-canary', from: 'r@example.test' };
  const before = tls.messages.length;
  const result = await notification.run(ctxFor(smtp));
  t.is(result.status, 'failed');
  t.regex(result.error!.code, /^smtp_(tls_failed|unreachable)$/);
  t.is(tls.messages.length, before);
});

test('a server that is not there fails smtp_unreachable', async (t) => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  t.like(await notification.run(ctxFor({ host: '127.0.0.1', port, from: 'r@example.test' })), { status: 'failed', error: { code: 'smtp_unreachable' } });
});

test('a sandbox run sends nothing and records what it would have sent', async (t) => {
  const ctx = ctxFor({ host: '127.0.0.1', port: plain.port, from: 'rampart@example.test' }, { sandboxMode: true, params: { owner: 'sandbox@example.test', ip: '1.2.3.4', reason: 'r' } });
  const result = await notification.run(ctx);
  t.deepEqual(result, {
    status: 'completed',
    output: {
      channel: 'email',
      sandbox: true,
      would_send: { from: 'rampart@example.test', to: ['sandbox@example.test', 'soc@example.test'], cc: ['audit@example.test'], subject: 'Blocked 1.2.3.4 on shop.example.test', text: 'Address 1.2.3.4 was blocked.\nReason: r' },
    },
  });
  t.false(plain.messages.some((m) => m.recipients.includes('sandbox@example.test')));
});

test('no SMTP configured fails smtp_not_configured; a sandbox run still completes', async (t) => {
  t.like(await notification.run(ctxFor(undefined)), { status: 'failed', error: { code: 'smtp_not_configured' } });
  t.like(await notification.run(ctxFor({ port: 25 })), { status: 'failed', error: { code: 'smtp_not_configured', message: 'executors.notification.smtp.host is not set' } });
  t.like(await notification.run(ctxFor(undefined, { sandboxMode: true })), { status: 'completed', output: { sandbox: true, would_send: { from: null } } });
});

test('a dry run sends nothing and plans the rendered message', async (t) => {
  const ctx = ctxFor({ host: '127.0.0.1', port: plain.port, from: 'rampart@example.test' }, { dryRun: true, params: { owner: 'dry@example.test', ip: '1.2.3.4', reason: 'r' } });
  const result = await notification.run(ctx);
  t.deepEqual(result.plan, {
    executor: 'notification',
    channel: 'email',
    smtp: { host: '127.0.0.1', port: plain.port },
    message: { from: 'rampart@example.test', to: ['dry@example.test', 'soc@example.test'], cc: ['audit@example.test'], subject: 'Blocked 1.2.3.4 on shop.example.test', text: 'Address 1.2.3.4 was blocked.\nReason: r' },
  });
  t.false(plain.messages.some((m) => m.recipients.includes('dry@example.test')));
});
