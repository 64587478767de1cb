import test from 'ava';
import { sharedTestCertificates } from '../_helpers/certificates/certs.ts';
import { eventually } from '../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { startSyslogReceiver, type SyslogReceiver } from '../_helpers/receivers/syslog-receiver.ts';
import { specFields } from '../_helpers/spec-clients/spec-fields.ts';

// SIEM forwarding as a spec-only client sets it up: exactly the spec's fields. The spec has
// no TLS material, so the collector's certificate must chain to a CA of the system store;
// this test's collector has a private CA, so the integration's status names the TLS
// failure until `tls.ca` (a Rampart field) is added (docs/spec-differences.md). Then a new
// finding arrives at the collector as CEF with cs1..cs3 holding severity, cvss and finding_id.
let t0: TestApp;
let collector: SyslogReceiver;
let token: string;
test.before(async () => {
  const { server } = await sharedTestCertificates();
  collector = await startSyslogReceiver({ tls: { cert: server.chainPem, key: server.keyPem, minVersion: 'TLSv1.2' } });
  t0 = await createTestApp();
  await t0.app.start();
  ({ token } = await t0.tenant());
});
test.after.always(async () => {
  await collector?.stop();
  await t0?.close();
});

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });

test('create → read → list → a finding forwarded as CEF, with the spec\'s fields only', async (t) => {
  const created = await call('POST', '/api/integrations/siem', { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: collector.port, format: 'cef', events: ['finding.new'] });
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { type: 'string', protocol: 'string', host: 'string', port: 'integer', format: 'string', events: 'array' }, 'POST /api/integrations/siem');
  const id = created.body.data.id;
  t.is((await call('GET', `/api/integrations/siem/${id}`)).statusCode, 200);
  t.deepEqual((await call('GET', '/api/integrations/siem')).body.data.map((s: { id: string }) => s.id), [id]);

  const assetId = (await call('POST', '/api/assets', { name: '198.51.100.50', type: 'ip' })).body.data.id;
  const finding = await call('POST', '/api/findings', { asset_id: assetId, title: 'Open Redis', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
  t.is(finding.statusCode, 201, finding.raw);
  const status = await eventually(async () => (await call('GET', `/api/integrations/siem/${id}`)).body.data.status.last_error ?? undefined, 15_000);
  t.regex(status, /certificate/);
  const { ca } = await sharedTestCertificates();
  const trusted = await call('PUT', `/api/integrations/siem/${id}`, { tls: { ca: ca.certPem } });
  t.is(trusted.statusCode, 200, trusted.raw);
  const [frame] = await collector.waitFor((f) => f.length >= 1, 20_000);
  t.deepEqual(collector.errors, []);
  t.like(frame!.cef, { version: 0, classId: 'finding.new' });
  t.like(frame!.cef!.extensions, { cs1: 'critical', cs2: '9.8', cs3: finding.body.data.id });
  t.is(frame!.cef!.extensions.dst, '198.51.100.50');
});
