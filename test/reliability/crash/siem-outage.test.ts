// Crash case: a SIEM outage. The collector goes down, events queue behind the
// integration's cursor, the worker is killed during the outage and more events arrive
// while no worker lives; the collector comes back, a new worker forwards the backlog:
// one syslog frame per event, in order.
import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { startSyslogReceiver, type SyslogReceiver } from '../../_helpers/receivers/syslog-receiver.ts';
import { siemConsumerName } from '../../../core/siem/siem-repository.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';

let w: CrashWorld;
let collector: SyslogReceiver;
test.before(async () => {
  const { server } = await sharedTestCertificates();
  w = await crashWorld({ siem: { reconnectMinMs: 20, reconnectMaxMs: 100 } });
  collector = await startSyslogReceiver({ tls: { cert: server.chainPem, key: server.keyPem, minVersion: 'TLSv1.2' } });
});
test.after.always(async () => {
  await w?.close();
  await collector?.stop();
});

test('SIGKILL during a collector outage: after restart every queued event reaches the collector exactly once', async (t) => {
  const { ca } = await sharedTestCertificates();
  const siem = (await w.call('POST', '/api/integrations/siem', { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: collector.port, format: 'cef', events: ['asset.created'], tls: { ca: ca.certPem } })).id as string;
  const asset = async (i: number) => (await w.call('POST', '/api/assets', { name: `siem-${i}.example.com`, type: 'domain' })).id as string;
  const eventIds = async () => (await w.app.ctx.db('events').where({ kind: 'asset.created', tenant_id: w.tenantId }).orderBy('id').select('id')).map((e: any) => String(e.id));
  const cursor = async () => Number((await w.app.ctx.db('event_cursors').where({ consumer: siemConsumerName(siem) }).first())?.last_event_id ?? 0);
  const framed = () => collector.frames.map((f) => f.cef?.extensions.externalId);

  const first = await w.worker();
  for (let i = 0; i < 3; i++) await asset(i);
  await collector.waitFor((f) => f.length >= 3, 20_000);
  const sent = await eventIds();
  // Delivered and recorded: the cursor has moved past them, so nothing is in flight.
  await eventually(async () => (await cursor()) >= Number(sent.at(-1)), 20_000);

  await collector.stop();
  for (let i = 3; i < 8; i++) await asset(i);
  await eventually(async () => (await w.call('GET', `/api/integrations/siem/${siem}`)).status.last_error !== null, 20_000);
  t.true((await cursor()) < Number((await eventIds()).at(-1)), 'the outage\'s events are queued behind the cursor');
  await first.crash();
  for (let i = 8; i < 10; i++) await asset(i);
  await collector.restart();
  await w.worker();

  const all = await eventIds();
  t.is(all.length, 10);
  await collector.waitFor((f) => f.length >= all.length, 30_000);
  await eventually(async () => (await cursor()) >= Number(all.at(-1)), 20_000);
  t.deepEqual(collector.errors, []);
  assertCounted(t, tally(framed()), all, 1, 'syslog frames per event id');
  t.deepEqual(framed(), all, 'in event order');
  // The status is written after the batch's send, beside (not with) the cursor.
  await eventually(async () => (await w.call('GET', `/api/integrations/siem/${siem}`)).status.last_error === null, 10_000).catch(() => undefined);
  t.is((await w.call('GET', `/api/integrations/siem/${siem}`)).status.last_error, null, 'the outage is over');
  t.deepEqual(w.workerErrors(), []);
});
