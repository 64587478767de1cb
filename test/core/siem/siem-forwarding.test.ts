import dgram from 'node:dgram';
import test from 'ava';
import type { StoredEventKind } from '../../../core/domain/event-kinds.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { parse5424 } from '../../_helpers/parsers/syslog-parser.ts';
import { startSyslogReceiver, type ReceivedFrame, type SyslogReceiver } from '../../_helpers/receivers/syslog-receiver.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
  await t0.app.start();
});

// Every receiver is stopped here too, so a failed assertion cannot leave a listener that keeps the file from exiting.
const receivers: SyslogReceiver[] = [];

test.after.always(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await t0?.close();
});

async function listen(options: Parameters<typeof startSyslogReceiver>[0] = {}): Promise<SyslogReceiver> {
  const started = await startSyslogReceiver(options);
  receivers.push(started);
  return started;
}

async function tlsReceiver(extra: Record<string, unknown> = {}): Promise<SyslogReceiver> {
  const { server } = await sharedTestCertificates();
  return listen({ tls: { cert: server.chainPem, key: server.keyPem, minVersion: 'TLSv1.2', ...extra } });
}

async function integration(token: string, payload: Record<string, unknown>): Promise<string> {
  const res = await t0.request('POST', '/api/integrations/siem', { token, payload: { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', ...payload } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data.id as string;
}

async function publish(tenantId: string, kind: StoredEventKind, data: Record<string, unknown>, assetId: string | null = null): Promise<string> {
  return String(await t0.ctx.outbox.transaction(({ emit }) => emit({ tenantId, kind, assetId, data })));
}

/** The status is written after the batch's write returns, so a collector can hold the frames before the status says so. */
async function statusWhen(id: string, token: string, ready: (status: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const res = await t0.request('GET', `/api/integrations/siem/${id}`, { token });
    const status = res.body.data.status as Record<string, unknown>;
    return ready(status) ? status : undefined;
  }, 10_000);
}

const eventIds = (frames: ReceivedFrame[]) => frames.map((f) => f.cef?.extensions.externalId ?? f.syslog.sd[0]?.params.find(([k]) => k === 'event_id')?.[1]);

test('CEF over TLS: strict frames, header and extension escaping, severity mapping, cs1-cs3; only the own tenant and subscribed kinds', async (t) => {
  const { ca } = await sharedTestCertificates();
  const mine = await tlsReceiver();
  const theirs = await tlsReceiver();
  const a = await t0.tenant();
  const b = await t0.tenant();
  await integration(a.token, { port: mine.port, format: 'cef', events: ['finding.new', 'scan.completed'], tls: { ca: ca.certPem } });
  await integration(b.token, { port: theirs.port, format: 'cef', events: ['finding.new', 'scan.completed'], tls: { ca: ca.certPem } });
  const title = 'Weird | title = with \\ back]slash "quoted"\nsecond line';
  const finding = await publish(a.tenantId, 'finding.new', {
    finding_id: 'fnd_01', title, severity: 'high', cvss: 7.5, asset: { id: 'ast_1', name: '10.0.0.5', type: 'ip' }, scan_id: 'scn_1',
  }, 'ast_1');
  await publish(a.tenantId, 'finding.status_changed', { finding_id: 'fnd_01', old_status: 'open', new_status: 'resolved' });
  await publish(b.tenantId, 'finding.new', { finding_id: 'fnd_b', title: 'B only', severity: 'low', cvss: 2 });
  const done = await publish(a.tenantId, 'scan.completed', { scan_id: 'scn_1', finding_count: 1, duration: 12 });
  await mine.waitFor((f) => f.length >= 2);
  await theirs.waitFor((f) => f.length >= 1);
  t.deepEqual(mine.errors, []);
  t.deepEqual(theirs.errors, []);
  t.deepEqual(eventIds(mine.frames), [finding, done]);
  const [f1, f2] = mine.frames as [ReceivedFrame, ReceivedFrame];
  t.like(f1.syslog, { facility: 16, severity: 3, appName: 'rampart', msgId: 'finding.new', bom: false, sd: [] });
  t.truthy(f1.syslog.timestamp);
  t.like(f1.cef, { version: 0, vendor: 'Rampart', product: 'Rampart', classId: 'finding.new', severity: 8 });
  t.is(f1.cef!.name, `New high finding: ${title.replace('\n', ' ')}`);
  t.like(f1.cef!.extensions, { dst: '10.0.0.5', cs1Label: 'severity', cs1: 'high', cs2Label: 'cvss', cs2: '7.5', cs3Label: 'finding_id', cs3: 'fnd_01', externalId: finding });
  t.is(f1.cef!.extensions.msg, `New high finding: ${title.replace('\n', ' ')}`.replace(/\s+/g, ' '));
  t.true(Number(f1.cef!.extensions.rt) > 0);
  t.like(f2.cef, { classId: 'scan.completed', severity: 2 });
  t.deepEqual(theirs.frames.map((f) => f.cef!.extensions.cs3), ['fnd_b']);
  await mine.stop();
  await theirs.stop();
});

test('RFC 5424 over TLS with mutual TLS: structured data carries the event, escaped; MSG is UTF-8 with BOM', async (t) => {
  const { ca } = await sharedTestCertificates();
  const client = await ca.issue({ usages: ['client'], commonName: 'rampart-client' });
  const receiver = await tlsReceiver({ requestCert: true, rejectUnauthorized: true, ca: ca.certPem });
  const a = await t0.tenant();
  const id = await integration(a.token, { port: receiver.port, format: 'rfc5424', facility: 20, events: ['system.alert', 'finding.new'], tls: { ca: ca.certPem, cert: client.certPem, key: client.keyPem, server_name: 'localhost' } });
  const alert = await publish(a.tenantId, 'system.alert', { alert_type: 'quota', message: 'Über "limit" ] \\ reached' });
  const finding = await publish(a.tenantId, 'finding.new', { finding_id: 'fnd_9', title: 'T', severity: 'critical', cvss: 9.8, asset: { id: 'ast_9', name: 'example.com', type: 'domain' } }, 'ast_9');
  await receiver.waitFor((f) => f.length >= 2);
  t.deepEqual(receiver.errors, []);
  const [f1, f2] = receiver.frames as [ReceivedFrame, ReceivedFrame];
  t.like(f1.syslog, { facility: 20, severity: 1, msgId: 'system.alert', bom: true, msg: 'System alert quota: Über "limit" ] \\ reached' });
  t.is(f1.syslog.sd[0]!.id, 'rampart@32473');
  t.deepEqual(Object.fromEntries(f1.syslog.sd[0]!.params), { event_id: alert, kind: 'system.alert', tenant_id: a.tenantId, alert_type: 'quota', message: 'Über "limit" ] \\ reached' });
  t.like(f2.syslog, { severity: 2, msgId: 'finding.new' });
  t.like(Object.fromEntries(f2.syslog.sd[0]!.params), { event_id: finding, asset_id: 'ast_9', finding_id: 'fnd_9', severity: 'critical', cvss: '9.8', asset_name: 'example.com', asset_type: 'domain' });
  const status = await statusWhen(id, a.token, (s) => s.last_sent_at !== null);
  t.truthy(status.last_sent_at);
  t.is(status.last_error, null);
  await receiver.stop();
});

test.serial('collector outage: events wait and go out in order once it is back, none lost, none twice', async (t) => {
  const { ca } = await sharedTestCertificates();
  const receiver = await tlsReceiver();
  const a = await t0.tenant();
  const id = await integration(a.token, { port: receiver.port, format: 'cef', events: ['scan.progress'], tls: { ca: ca.certPem } });
  const ids = [await publish(a.tenantId, 'scan.progress', { scan_id: 's', progress: 0, phase: 'p' })];
  await receiver.waitFor((f) => f.length >= 1);
  await receiver.stop();
  for (let i = 0; i < 100 && t0.ctx.background.siem.isConnected(id); i++) await new Promise((r) => setTimeout(r, 20));
  t.false(t0.ctx.background.siem.isConnected(id));
  for (let i = 1; i <= 20; i++) ids.push(await publish(a.tenantId, 'scan.progress', { scan_id: 's', progress: i, phase: 'p' }));
  // Wait until the forwarder has really tried and failed, so the backlog built up while down.
  for (let i = 0; i < 200; i++) {
    const res = await t0.request('GET', `/api/integrations/siem/${id}`, { token: a.token });
    if (res.body.data.status.last_error) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const down = await t0.request('GET', `/api/integrations/siem/${id}`, { token: a.token });
  t.truthy(down.body.data.status.last_error);
  t.is(receiver.frames.length, 1);
  await receiver.restart();
  await receiver.waitFor((f) => eventIds(f).includes(ids[ids.length - 1]));
  t.deepEqual(receiver.errors, []);
  t.deepEqual(eventIds(receiver.frames), ids);
  t.true(receiver.connections >= 2);
  const up = await statusWhen(id, a.token, (s) => s.last_error === null);
  t.is(up.last_error, null);
  // One system.alert for the outage, in the tenant's own events (stream, webhooks).
  const alerts = (await t0.ctx.db('events').where({ tenant_id: a.tenantId, kind: 'system.alert' })) as Array<{ data: string }>;
  t.is(alerts.length, 1);
  t.like(JSON.parse(alerts[0]!.data), { alert_type: 'siem_unreachable', integration_id: id });
  await receiver.stop();
});

test('plain TCP uses octet counting too; deleting an integration stops its forwarding', async (t) => {
  const receiver = await listen();
  const a = await t0.tenant();
  const id = await integration(a.token, { protocol: 'tcp', port: receiver.port, format: 'rfc5424', events: ['system.alert'] });
  const first = await publish(a.tenantId, 'system.alert', { alert_type: 'x', message: 'line1\nline2' });
  await receiver.waitFor((f) => f.length >= 1);
  t.deepEqual(receiver.errors, []);
  t.is(receiver.frames[0]!.syslog.msg, 'System alert x: line1\nline2');
  t.deepEqual(eventIds(receiver.frames), [first]);
  await t0.request('DELETE', `/api/integrations/siem/${id}`, { token: a.token });
  await t0.ctx.background.siem.refresh();
  await publish(a.tenantId, 'system.alert', { alert_type: 'y', message: 'after delete' });
  // A second, still active integration of the same tenant proves events after the delete were processed.
  const other = await listen();
  await integration(a.token, { protocol: 'tcp', port: other.port, format: 'rfc5424', events: ['system.alert'] });
  const marker = await publish(a.tenantId, 'system.alert', { alert_type: 'z', message: 'marker' });
  await other.waitFor((f) => eventIds(f).includes(marker));
  t.is(receiver.frames.length, 1);
  await receiver.stop();
  await other.stop();
});

test('the test call checks the server name and the trust anchor', async (t) => {
  const { ca } = await sharedTestCertificates();
  const receiver = await tlsReceiver();
  const a = await t0.tenant();
  const good = await integration(a.token, { port: receiver.port, format: 'cef', events: ['system.alert'], active: false, tls: { ca: ca.certPem, server_name: 'localhost' } });
  const wrongName = await integration(a.token, { port: receiver.port, format: 'cef', events: ['system.alert'], active: false, tls: { ca: ca.certPem, server_name: 'wrong.example' } });
  const untrusted = await integration(a.token, { port: receiver.port, format: 'cef', events: ['system.alert'], active: false });
  const ok = await t0.request('POST', `/api/integrations/siem/${good}/test`, { token: a.token });
  t.true(ok.body.data.delivered, ok.raw);
  await receiver.waitFor((f) => f.length >= 1);
  t.like(receiver.frames[0]!.cef, { classId: 'system.alert', severity: 7 });
  t.deepEqual(receiver.errors, []);
  const bad = await t0.request('POST', `/api/integrations/siem/${wrongName}/test`, { token: a.token });
  t.false(bad.body.data.delivered);
  t.regex(bad.body.data.error, /wrong\.example|altname|Hostname/i);
  const noTrust = await t0.request('POST', `/api/integrations/siem/${untrusted}/test`, { token: a.token });
  t.false(noTrust.body.data.delivered);
  t.is(receiver.frames.length, 1);
  await receiver.stop();
});

test('UDP sends one unframed RFC 5424 message per datagram', async (t) => {
  const socket = dgram.createSocket('udp4');
  const messages: string[] = [];
  socket.on('message', (m) => messages.push(m.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    const a = await t0.tenant();
    await integration(a.token, { protocol: 'udp', port: socket.address().port, format: 'rfc5424', events: ['scan.failed'] });
    const id = await publish(a.tenantId, 'scan.failed', { scan_id: 'scn_u', error: 'timeout [x]' });
    for (let i = 0; i < 500 && messages.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    t.is(messages.length, 1);
    const parsed = parse5424(messages[0]!);
    t.like(parsed, { severity: 3, msgId: 'scan.failed', msg: 'Scan scn_u failed: timeout [x]' });
    t.like(Object.fromEntries(parsed.sd[0]!.params), { event_id: id, scan_id: 'scn_u', error: 'timeout [x]' });
  } finally {
    socket.close();
  }
});
