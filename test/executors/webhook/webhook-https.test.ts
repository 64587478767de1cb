// The webhook executor end to end through the platform's client to a real HTTPS receiver.
import test from 'ava';
import { mockExecutorContext } from '../../../core/author-kit/index.ts';
import webhook from '../../../executors/webhook/index.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { realHttp, type RealHttp } from '../_lib/real-http.ts';

let receiver: HttpsReceiver;
let http: RealHttp;

test.before(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond((req) => (req.path.startsWith('/hook/') ? { status: 201, body: '{"received":true}' } : { status: 404, body: 'no such hook' }));
  http = await realHttp();
});

test.after.always(async () => {
  await http?.client.close();
  await receiver?.close();
});

const HOSTILE = 'x", "admin": true, "y": "\u2028\\';

test('the receiver gets the rendered request: encoded path, secret header, JSON body that a hostile value cannot break', async (t) => {
  const ctx = mockExecutorContext({
    params: { id: 'a/b c', note: HOSTILE, token: 'tok-live-1' },
    secretParams: ['token'],
    config: { url: `${receiver.origin}/hook/{{ id }}`, method: 'PUT', headers: { 'X-Api-Key': '{{ token }}' }, body_template: '{"note": "{{ note }}", "id": {{ id }}}' },
    http: http.respond,
  });
  const result = await webhook.run(ctx);
  t.deepEqual(result, { status: 'completed', output: { status_code: 201, body: { received: true } } });
  const got = receiver.requests.find((r) => r.path === '/hook/a%2Fb%20c')!;
  t.truthy(got);
  t.is(got.method, 'PUT');
  t.is(got.headers['x-api-key'], 'tok-live-1');
  t.deepEqual(JSON.parse(got.body), { note: HOSTILE, id: 'a/b c' });
  t.deepEqual(ctx.secretLeaks, []);
});

test('a 404 from the receiver fails http_404 with the body', async (t) => {
  const ctx = mockExecutorContext({ params: {}, config: { url: `${receiver.origin}/nowhere`, body_template: '{}' }, http: http.respond });
  t.like(await webhook.run(ctx), { status: 'failed', error: { code: 'http_404', message: `${receiver.origin.replace('https://', '')} answered HTTP 404: no such hook` } });
});
