import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset } from '../../_helpers/harness/scan-helpers.ts';

// Production address policy: nothing private is allow-listed (the test config allows loopback).
let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp({ outbound: { allowPrivateCidrs: [] } });
});

test.after.always(async () => {
  await t0?.close();
});

// Loopback and the cloud metadata address, written in each IPv6 form that embeds an IPv4 address.
const HOSTS = [
  '::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::ffff:127.0.0.1', '::ffff:0:a9fe:a9fe',
  '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2002:a9fe:a9fe::1',
  '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:5601:5601',
];

async function count(table: string, tenantId: string): Promise<number> {
  const row = await t0.ctx.db(table).where({ tenant_id: tenantId }).count({ n: '*' }).first();
  return Number(row!.n);
}

function errorShape(t: import('ava').ExecutionContext, body: { error?: Record<string, unknown> }, code: string, label: string): void {
  t.is(body.error?.code, code, label);
  t.is(typeof body.error?.message, 'string', label);
}

test('webhooks: an embedded loopback or metadata address is a 400 url_not_allowed and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  for (const host of HOSTS) {
    const url = `https://[${host}]:8443/hook`;
    const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'x', url, events: ['finding.new'] } });
    t.is(res.statusCode, 400, url);
    errorShape(t, res.body, 'url_not_allowed', url);
  }
  t.is(await count('webhooks', tenantId), 0);
});

test('SIEM: an embedded loopback or metadata host is a 400 host_not_allowed and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  for (const host of HOSTS) {
    const payload = { type: 'syslog', protocol: 'tcp_tls', host, port: 6514, format: 'cef', events: ['finding.new'] };
    const res = await t0.request('POST', '/api/integrations/siem', { token, payload });
    t.is(res.statusCode, 400, host);
    errorShape(t, res.body, 'host_not_allowed', host);
  }
  t.is(await count('siem_integrations', tenantId), 0);
});

test('scan callbacks: an embedded loopback or metadata address is a 400 invalid_callback_url and queues no scan', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const assetId = await createAsset(t0, 'https://192.0.2.81/', 'url', token);
  for (const host of HOSTS) {
    const callback = `https://[${host}]/cb`;
    const res = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'web_app', callback_url: callback } });
    t.is(res.statusCode, 400, callback);
    errorShape(t, res.body, 'invalid_callback_url', callback);
  }
  t.is(await count('scans', tenantId), 0);
});

test('a public address in an embedded form is still accepted (6to4 of 8.8.8.8)', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'x', url: 'https://[2002:808:808::1]/hook', events: ['finding.new'] } });
  t.is(res.statusCode, 201, res.raw);
});
