import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { headerVersion, probeAmqp } from '../../../../scanners/_lib/protocols/amqp.ts';
import { parseStart, readTable, table } from '../../../../scanners/_lib/protocols/amqp-frames.ts';
import { probeService } from '../../../../scanners/_lib/service-probes.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';
import { startAmqpTarget } from '../../../_helpers/targets/amqp-target.ts';

// This machine's RabbitMQ (CI has it), which allows guest/guest on loopback only, as shipped.
const rabbitUp = await serviceAvailable('RabbitMQ', 'amqp://127.0.0.1:5672');

const o = { timeoutMs: 3000, authChecks: true, loginUsers: [] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('field tables and the protocol header a server sends back', (t) => {
  const encoded = table({ product: 'RabbitMQ', copyright: 'x', capabilities: { publisher_confirms: true } });
  t.deepEqual(readTable(encoded, 0).values, { product: 'RabbitMQ', copyright: 'x' });
  const args = Buffer.concat([Buffer.from([0, 9]), encoded, Buffer.from([0, 0, 0, 5]), Buffer.from('PLAIN'), Buffer.from([0, 0, 0, 5]), Buffer.from('en_US')]);
  t.deepEqual(parseStart(args), { version: '0-9', properties: { product: 'RabbitMQ', copyright: 'x' }, mechanisms: ['PLAIN'] });
  t.is(headerVersion(Buffer.from('AMQP\x03\x01\x00\x00', 'latin1')), '1.0.0 (protocol id 3)');
  t.is(headerVersion(Buffer.from('HTTP/1.1')), null);
});

(rabbitUp ? test : test.skip)('RabbitMQ on loopback: identified with product and version; guest/guest accepted, reported for this host only', async (t) => {
  const info = await probeAmqp('127.0.0.1', 5672, o);
  t.is(info?.service, 'amqp');
  t.is(info?.details.product, 'RabbitMQ');
  t.regex(info?.details.version ?? '', /^\d+\.\d+/);
  t.deepEqual(info?.openAccounts, ['guest']);
  t.is(info?.details.vhost, '/ (opened)');
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: '5672' }, timeoutMs: 20_000 });
  const finding = attempt.findings.find((f) => f.location === '127.0.0.1:5672/tcp#default-credentials');
  t.is(finding?.title, 'RabbitMQ accepts the default guest/guest login, reachable on this host only');
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
});

test('a broker that refuses guest: identified, Close acknowledged, no finding; an accepting one is left with Connection.Close', async (t) => {
  const refusing = await startAmqpTarget({ acceptGuest: false });
  const accepting = await startAmqpTarget({ acceptGuest: true });
  t.teardown(() => Promise.all([refusing.close(), accepting.close()]));
  const no = await probeService('127.0.0.1', refusing.port, o);
  t.deepEqual([no.service, no.auth, no.openAccounts], ['amqp', 'required', undefined]);
  t.regex(no.details.guest_login ?? '', /^refused: 403 ACCESS_REFUSED/);
  const yes = await probeAmqp('127.0.0.1', accepting.port, o);
  t.deepEqual(yes?.openAccounts, ['guest']);
  await eventually(async () => [...refusing.sessions, ...accepting.sessions].filter((s) => s.login).every((s) => s.leftCleanly));
  t.true([...refusing.sessions, ...accepting.sessions].every((s) => s.otherMethods === 0), 'nothing beyond the connection handshake');
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(refusing.port) }, timeoutMs: 20_000 });
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), ['AMQP broker reachable on this host only', `Open port ${refusing.port}/tcp (amqp)`]);
});

test('with auth_checks off no login is tried', async (t) => {
  const broker = await startAmqpTarget({ acceptGuest: true });
  t.teardown(() => broker.close());
  const info = await probeAmqp('127.0.0.1', broker.port, { ...o, authChecks: false });
  t.is(info?.details.product, 'TestMQ');
  t.is(info?.openAccounts, undefined);
  t.deepEqual(broker.sessions.map((s) => s.login), [null]);
});
