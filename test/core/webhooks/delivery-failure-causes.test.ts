// A delivery that fails before any response records the real cause in words (in
// `last_error` and the attempt log) and logs it once per webhook and cause. Each cause
// is produced for real: a loopback DNS server answering NXDOMAIN, a TLS server whose
// certificate comes from an untrusted CA, a closed port, a server that never answers in
// time, and a header value stored before values were checked.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Resolver } from 'node:dns';
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../../core/logger.ts';
import { OutboundHttpClient } from '../../../core/outbound/http-client.ts';
import type { LookupFn } from '../../../core/outbound/guarded-lookup.ts';
import { headersContext } from '../../../core/webhooks/webhook-attempt.ts';
import { WebhookDeliveryWorker } from '../../../core/webhooks/webhook-delivery-worker.ts';
import { createCertificateAuthority, sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { startDnsTestServer, type DnsTestServer } from '../../_helpers/targets/dns-test-server.ts';

let t0: TestApp;
let dns: DnsTestServer;
let slow: HttpsReceiver;
let untrusted: Server;
let worker: WebhookDeliveryWorker;
let client: OutboundHttpClient;
const logs: Array<Record<string, unknown>> = [];

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    // One attempt each within the test: the next one would only be due a minute later.
    webhooks: { retryScheduleSeconds: [60, 60, 60], requestTimeoutMs: 2000, leaseMs: 5000, workerPollIntervalMs: 50, concurrency: 4, batchSize: 10 },
  });
  dns = await startDnsTestServer();
  slow = await startHttpsReceiver();
  slow.respond(() => ({ status: 200, delayMs: 8000 }));
  const other = await (await createCertificateAuthority('Some Other CA')).issue();
  untrusted = createServer({ cert: other.chainPem, key: other.keyPem }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => untrusted.listen(0, '127.0.0.1', resolve));
  // Names resolve through a real DNS server on loopback (NXDOMAIN for every name); IP-literal URLs need no lookup.
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const resolve: LookupFn = (host, _options, callback) => {
    resolver.resolve4(host, (err, addresses) => (err ? callback(err, []) : callback(null, addresses.map((address) => ({ address, family: 4 })))));
  };
  client = new OutboundHttpClient({ ...t0.config.outbound, userAgent: 'rampart-test', resolve });
  const logger = createLogger('warn', new Writable({ write(chunk, _enc, done) { logs.push(JSON.parse(String(chunk))); done(); } }));
  const ctx = t0.ctx;
  worker = new WebhookDeliveryWorker({ db: ctx.db, outbox: ctx.outbox, client, box: ctx.secretBox, config: ctx.config.webhooks, logger });
  await ctx.background.webhooks.dispatcher.start();
  worker.start();
});

test.after.always(async () => {
  await worker?.stop();
  await t0?.ctx.background.webhooks.dispatcher.stop();
  await client?.close();
  await t0?.close();
  await slow?.close();
  await dns?.close();
  await new Promise((resolve) => untrusted?.close(resolve));
});

async function webhook(token: string, url: string, headers?: Record<string, string>): Promise<string> {
  const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'causes', url, events: ['asset.created'], ...(headers ? { headers } : {}) } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data.id as string;
}

async function emit(tenantId: string, n = 1): Promise<void> {
  await t0.ctx.outbox.transaction(async ({ emit }) => {
    for (let i = 0; i < n; i++) await emit({ tenantId, kind: 'asset.created', data: { asset_id: `ast_${i}` } });
  });
}

/** Every delivery of the webhook once it has been attempted, with its attempt log. */
async function attempted(token: string, hookId: string, n: number) {
  return eventually(async () => {
    const list = (await t0.request('GET', `/api/webhooks/${hookId}/deliveries`, { token })).body.data as Array<{ id: string; last_error: string | null; attempts: number }>;
    if (list.length < n || list.some((d) => d.attempts < 1)) return undefined;
    return Promise.all(list.map(async (d) => (await t0.request('GET', `/api/webhooks/${hookId}/deliveries/${d.id}`, { token })).body.data));
  }, 20_000);
}

const logsOf = (hookId: string) => logs.filter((l) => l.webhook === hookId);

test('a refused connection: last_error names the address and ECONNREFUSED; two deliveries failing alike log one line', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const closed = await startHttpsReceiver();
  const port = closed.port;
  await closed.close();
  const hook = await webhook(token, `https://127.0.0.1:${port}/hook/s3cr3t-path-token`);
  await emit(tenantId, 2);
  const [a, b] = await attempted(token, hook, 2);
  for (const d of [a, b]) {
    t.is(d.status, 'retried');
    t.is(d.response_code, null);
    t.is(d.last_error, `Connection to 127.0.0.1:${port} refused (ECONNREFUSED): nothing accepts connections there.`);
    t.like(d.attempt_log[0], { error_code: 'connect_failed', error: d.last_error, response_code: null });
  }
  const lines = logsOf(hook);
  t.is(lines.length, 1, 'logged once for both deliveries');
  t.like(lines[0], { level: 'warn', error_code: 'connect_failed', host: `127.0.0.1:${port}`, tenant: tenantId });
  t.false(JSON.stringify(lines).includes('s3cr3t-path-token'), 'the URL path is not logged');
});

test('DNS: a name that no longer resolves is dns_failed with the host in words', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const hook = await webhook(token, `${slow.origin}/hook`);
  // The DNS record went away after the webhook was registered.
  await t0.ctx.db('webhooks').where({ id: hook }).update({ url: 'https://gone.rampart.test/hook' });
  await emit(tenantId);
  const [d] = await attempted(token, hook, 1);
  t.is(d.last_error, 'DNS lookup of gone.rampart.test failed: no such host (ENOTFOUND).');
  t.is(d.attempt_log[0].error_code, 'dns_failed');
  t.like(logsOf(hook)[0], { error_code: 'dns_failed', host: 'gone.rampart.test' });
});

test('TLS: a certificate from an untrusted CA is tls_failed with the reason', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const port = (untrusted.address() as AddressInfo).port;
  const hook = await webhook(token, `https://127.0.0.1:${port}/hook`);
  await emit(tenantId);
  const [d] = await attempted(token, hook, 1);
  t.is(d.attempt_log[0].error_code, 'tls_failed');
  t.regex(d.last_error, new RegExp(`^TLS handshake with 127\\.0\\.0\\.1:${port} failed: .*(certificate|issuer).* \\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\\)\\.$`));
  t.is(logsOf(hook).length, 1);
});

test('no answer within requestTimeoutMs is a timeout naming the limit', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const hook = await webhook(token, `${slow.origin}/hook`);
  await emit(tenantId);
  const [d] = await attempted(token, hook, 1);
  t.is(d.last_error, `No complete answer from 127.0.0.1:${slow.port} within 2 s.`);
  t.is(d.attempt_log[0].error_code, 'timeout');
});

test('a header value stored before values were checked fails as invalid_header, naming the header and not the value', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const ok = await startHttpsReceiver();
  t.teardown(() => ok.close());
  const hook = await webhook(token, `${ok.origin}/hook`, { Authorization: 'Splunk 0f3c-valid' });
  // As saved by a release that did not check values: the README's old example with a non-ASCII ellipsis.
  await t0.ctx.db('webhooks').where({ id: hook }).update({ headers_sealed: t0.ctx.secretBox.seal(JSON.stringify({ Authorization: 'Splunk 0f3c…' }), headersContext(hook)) });
  await emit(tenantId);
  const [d] = await attempted(token, hook, 1);
  t.is(d.last_error, "Custom header Authorization is not valid HTTP header text: it contains U+2026 (…), which is not ASCII; header values must be visible ASCII characters, spaces and tabs. Update the webhook's headers.");
  t.is(d.attempt_log[0].error_code, 'invalid_header');
  t.is(ok.requests.length, 0, 'nothing was sent');
  t.false(JSON.stringify(logsOf(hook)).includes('0f3c'), 'the value is never logged');
  t.is(logsOf(hook).length, 1);
});
