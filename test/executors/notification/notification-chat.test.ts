// The chat channel through the platform's client to a real HTTPS receiver on loopback.
import test from 'ava';
import { mockExecutorContext } from '../../../core/author-kit/index.ts';
import notification from '../../../executors/notification/index.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { realHttp, type RealHttp } from '../_lib/real-http.ts';

let receiver: HttpsReceiver;
let http: RealHttp;

test.before(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond((req) => (req.path === '/services/T1/B2' ? { status: 200, body: 'ok' } : { status: 404, body: 'no_team' }));
  http = await realHttp();
});

test.after.always(async () => {
  await http?.client.close();
  await receiver?.close();
});

test('a Slack-compatible message reaches the receiver as {"text"} JSON', async (t) => {
  const ctx = mockExecutorContext({
    actionType: 'notification',
    params: { finding: 'TLS 1.0 "enabled"\non edge', hook: `${receiver.origin}/services/T1/B2` },
    secretParams: ['hook'],
    config: { channel: 'chat', url: '{{ hook }}', text_template: 'New finding: {{ finding }}' },
    http: http.respond,
  });
  const result = await notification.run(ctx);
  t.deepEqual(result, { status: 'completed', output: { channel: 'chat', status_code: 200 } });
  const got = receiver.requests.find((r) => r.path === '/services/T1/B2')!;
  t.is(got.method, 'POST');
  t.is(got.headers['content-type'], 'application/json');
  t.deepEqual(JSON.parse(got.body), { text: 'New finding: TLS 1.0 "enabled"\non edge' });
});

test('a receiver that refuses fails http_404 with its answer', async (t) => {
  const ctx = mockExecutorContext({ params: {}, config: { channel: 'chat', url: `${receiver.origin}/services/gone`, text_template: 'x', format: 'teams' }, http: http.respond });
  t.like(await notification.run(ctx), { status: 'failed', error: { code: 'http_404' }, output: { status_code: 404, body: 'no_team' } });
});
