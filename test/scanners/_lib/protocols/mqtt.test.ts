import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { mqttConnect, mqttFramer, parseConnack, probeMqtt } from '../../../../scanners/_lib/protocols/mqtt.ts';
import { probeService } from '../../../../scanners/_lib/service-probes.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { reachable } from '../../../_helpers/harness/local-service.ts';
import { startMqttTarget } from '../../../_helpers/targets/mqtt-target.ts';
import { startMosquitto } from '../../../_helpers/targets/server-processes.ts';
import { systemBinary } from '../../../_helpers/targets/netns-hosts.ts';

// CI's service list has no Mosquitto: the purpose-built target runs everywhere, the real broker where installed.
const mosquitto = systemBinary('mosquitto') !== 'mosquitto';
if (!mosquitto) console.warn('mosquitto is not installed: the real-Mosquitto tests are skipped (the purpose-built MQTT target still runs)');
const systemBroker = await reachable('127.0.0.1', 1883);

const o = { timeoutMs: 3000, authChecks: true, loginUsers: [] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };
const scanPort = (port: number) => runCheck(plugin.checks[0]!, target, { options: { ports: String(port) }, timeoutMs: 20_000 });

test('packets: CONNECT without credentials and a random client id, framing, CONNACK', (t) => {
  const a = mqttConnect();
  t.is(a[0], 0x10);
  t.is(a.subarray(4, 8).toString(), 'MQTT');
  t.is(a[8], 4, 'protocol level 4 (3.1.1)');
  t.is(a[9], 0x02, 'clean session, no user name, no password');
  t.not(mqttConnect().toString('hex'), a.toString('hex'), 'each connect has its own client id');
  t.is(mqttFramer(a), a.length);
  t.is(mqttFramer(a.subarray(0, 5)), 0);
  t.deepEqual(parseConnack(Buffer.from([0x20, 2, 0, 5])), { code: 5 });
  t.is(parseConnack(Buffer.from('HTTP/1.1 400')), null);
});

test('anonymous broker: identified with its version, reported, and left with DISCONNECT having published nothing', async (t) => {
  const broker = await startMqttTarget({ requireAuth: false, version: 'testmq 1.2.3' });
  t.teardown(() => broker.close());
  const info = await probeMqtt('127.0.0.1', broker.port, o);
  t.is(info?.service, 'mqtt');
  t.is(info?.auth, 'none');
  t.is(info?.details.version, 'testmq 1.2.3');
  const session = broker.sessions[0]!;
  t.regex(session.clientId, /^rampart-[0-9a-f]{12}$/);
  t.is(session.username, null);
  t.deepEqual(session.subscribed, ['$SYS/broker/version']);
  t.is(session.published, 0);
  t.is(await eventually(async () => session.ending !== 'open' && session.ending), 'disconnect');
  // On a port with no MQTT hint the parallel probes find it too; the finding says where it was reached.
  const attempt = await scanPort(broker.port);
  t.is(attempt.status, 'completed', attempt.error);
  const finding = attempt.findings.find((f) => f.location === `127.0.0.1:${broker.port}/tcp#no-auth`);
  t.is(finding?.title, 'MQTT broker accepts clients without credentials, reachable on this host only');
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L');
  await eventually(async () => broker.sessions.every((s) => s.ending !== 'open'));
  t.true(broker.sessions.every((s) => s.published === 0 && s.ending === 'disconnect'), 'every session left with DISCONNECT');
});

test('broker that wants credentials: identified, no finding about anonymous access', async (t) => {
  const broker = await startMqttTarget({ requireAuth: true });
  t.teardown(() => broker.close());
  const info = await probeMqtt('127.0.0.1', broker.port, o);
  t.deepEqual([info?.service, info?.auth, info?.details.connack], ['mqtt', 'required', '5 (not authorized)']);
  t.deepEqual(broker.sessions[0]!.subscribed, [], 'nothing is read from a broker that refused');
  const attempt = await scanPort(broker.port);
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), [`MQTT broker reachable on this host only`, `Open port ${broker.port}/tcp (mqtt)`]);
});

(mosquitto ? test : test.skip)('real Mosquitto: anonymous accepted with its version; allow_anonymous false refused', async (t) => {
  const open = await startMosquitto({ anonymous: true });
  const closed = await startMosquitto({ anonymous: false });
  t.teardown(() => Promise.all([open.close(), closed.close()]));
  const a = await probeService('127.0.0.1', open.port, o);
  t.is(a.service, 'mqtt');
  t.is(a.auth, 'none');
  t.regex(a.details.version ?? '', /^mosquitto version \d+\.\d+/);
  const b = await probeService('127.0.0.1', closed.port, o);
  t.deepEqual([b.service, b.auth], ['mqtt', 'required']);
});

(systemBroker ? test : test.skip)('the MQTT broker of this machine on 1883 is identified', async (t) => {
  const info = await probeService('127.0.0.1', 1883, o);
  t.is(info.service, 'mqtt');
  t.not(info.auth, 'unknown');
});
