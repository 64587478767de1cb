// The remote executor end to end: the platform's SSRF-guarded client, a real HTTPS
// receiver on loopback with a certificate from the test CA.
import test from 'ava';
import { mockExecutorContext, type MockExecutorOptions } from '../../../core/author-kit/index.ts';
import remote from '../../../executors/remote/index.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { realHttp, type RealHttp } from '../_lib/real-http.ts';

let receiver: HttpsReceiver;
let http: RealHttp;
let guarded: RealHttp;

test.before(async () => {
  receiver = await startHttpsReceiver();
  // One policy for the file (tests run concurrently): the path says how to answer.
  receiver.respond((req) =>
    req.path === '/ok'
      ? { status: 200, body: JSON.stringify({ blocked: true, echoed: JSON.parse(req.body) }) }
      : req.path === '/slow'
        ? { status: 200, delayMs: 5000 }
        : req.path === '/hangup'
          ? { status: 200, hangUp: true }
          : { status: 500, body: `internal error ${'e'.repeat(5000)}` },
  );
  http = await realHttp();
  guarded = await realHttp({ allowLoopback: false });
});

test.after.always(async () => {
  await http?.client.close();
  await guarded?.client.close();
  await receiver?.close();
});

const ctxFor = (path: string, o: MockExecutorOptions = {}) =>
  mockExecutorContext({
    params: { ip: '203.0.113.9', note: 'quote " and\nnewline' },
    config: { target: `${receiver.origin}${path}` },
    executionId: 'exe_remote_1',
    http: http.respond,
    ...o,
  });

test('the parameters arrive as a JSON body with the idempotency key; the JSON answer is the output', async (t) => {
  const result = await remote.run(ctxFor('/ok'));
  t.deepEqual(result, { status: 'completed', output: { blocked: true, echoed: { ip: '203.0.113.9', note: 'quote " and\nnewline' } } });
  const got = receiver.requests.find((r) => r.path === '/ok')!;
  t.is(got.method, 'POST');
  t.is(got.headers['content-type'], 'application/json');
  t.is(got.headers['idempotency-key'], 'exe_remote_1');
});

test('a 500 fails http_500 with the status and a bounded body', async (t) => {
  const result = await remote.run(ctxFor('/fail'));
  t.is(result.status, 'failed');
  t.is(result.error!.code, 'http_500');
  t.regex(result.error!.message, /HTTP 500: internal error e+/);
  t.true(Buffer.byteLength(String(result.output.body)) <= 2048 + 3);
});

test('no answer within the action timeout is timed_out', async (t) => {
  const result = await remote.run(ctxFor('/slow', { timeoutMs: 300 }));
  t.like(result, { status: 'timed_out', error: { code: 'timeout' } });
});

test('a connection dropped without an answer fails with the client code', async (t) => {
  const result = await remote.run(ctxFor('/hangup'));
  t.is(result.status, 'failed');
  t.is(result.error!.code, 'connect_failed');
});

test('a loopback target the admin did not allow is refused by the SSRF guard', async (t) => {
  const result = await remote.run(ctxFor('/ok', { http: guarded.respond }));
  t.like(result, { status: 'failed', error: { code: 'destination_refused' } });
});
