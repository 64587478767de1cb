import { randomBytes } from 'node:crypto';
import type { AccessOptions, ServiceInfo } from '../service-info.ts';
import { SocketSession } from '../socket-session.ts';

/** CONNACK return codes of MQTT 3.1.1 (§3.2.2.3). */
const CONNACK: Record<number, string> = {
  0: 'accepted',
  1: 'unacceptable protocol version',
  2: 'identifier rejected',
  3: 'server unavailable',
  4: 'bad user name or password',
  5: 'not authorized',
};
const VERSION_TOPIC = '$SYS/broker/version';

function remainingLength(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

const str = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
};

const packet = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type]), remainingLength(body.length), body]);

/**
 * CONNECT of MQTT 3.1.1 without credentials: clean session, 10 s keep-alive, and a
 * random client id (a fixed one would disconnect another client using it).
 */
export function mqttConnect(clientId = `rampart-${randomBytes(6).toString('hex')}`): Buffer {
  return packet(0x10, Buffer.concat([str('MQTT'), Buffer.from([4, 0x02, 0, 10]), str(clientId)]));
}

/** Size of the first whole MQTT control packet in `buf` (0 while incomplete). */
export function mqttFramer(buf: Buffer): number {
  let len = 0;
  let mul = 1;
  for (let i = 1; i < Math.min(buf.length, 5); i++) {
    len += (buf[i]! & 0x7f) * mul;
    if (!(buf[i]! & 0x80)) return buf.length >= i + 1 + len ? i + 1 + len : 0;
    mul *= 128;
  }
  if (buf.length >= 5) throw new Error('not MQTT: malformed remaining length');
  return 0;
}

/** Whether `data` is an MQTT CONNACK, and its return code. */
export function parseConnack(data: Buffer): { code: number } | null {
  if (data.length < 4 || data[0] !== 0x20 || data[1] !== 0x02 || data[2]! > 1) return null;
  return { code: data[3]! };
}

/**
 * Identifies an MQTT broker and whether it accepts a client without credentials: a
 * CONNECT with none, the CONNACK's return code (0 = accepted). When accepted, the
 * broker's version is read from `$SYS/broker/version` (a subscription, which only
 * reads; brokers without it or with ACLs simply do not answer), then DISCONNECT.
 * Null when the port does not speak MQTT.
 */
export async function probeMqtt(host: string, port: number, o: AccessOptions & { tls?: boolean }): Promise<ServiceInfo | null> {
  let session: SocketSession;
  try {
    session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal, tls: o.tls, servername: host });
  } catch {
    return null;
  }
  try {
    session.write(mqttConnect());
    const ack = parseConnack(await session.read(mqttFramer));
    if (!ack) return null;
    const reply = CONNACK[ack.code] ?? `return code ${ack.code}`;
    const details: Record<string, string> = { connack: `${ack.code} (${reply})`, protocol: 'MQTT 3.1.1' };
    if (ack.code !== 0) {
      session.close();
      return { service: 'mqtt', banner: `CONNACK ${reply}`, auth: ack.code === 4 || ack.code === 5 ? 'required' : 'unknown', details };
    }
    session.write(packet(0x82, Buffer.concat([Buffer.from([0, 1]), str(VERSION_TOPIC), Buffer.from([0])])));
    const version = await readVersion(session, Math.min(o.timeoutMs, 1000));
    if (version) details.version = version;
    session.close(Buffer.from([0xe0, 0x00]));
    return { service: 'mqtt', banner: version ?? 'CONNACK accepted', auth: 'none', details };
  } catch {
    session.close();
    return null;
  }
}

/** The retained PUBLISH on the version topic, if the broker sends one within `waitMs`. */
async function readVersion(session: SocketSession, waitMs: number): Promise<string | null> {
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    let message: Buffer;
    try {
      message = await session.read(mqttFramer, Math.max(1, until - Date.now()));
    } catch {
      return null;
    }
    if ((message[0]! & 0xf0) !== 0x30) continue; // SUBACK and anything else
    let i = 1;
    while (message[i]! & 0x80) i++;
    const start = i + 1;
    const topicLen = message.readUInt16BE(start);
    const topic = message.subarray(start + 2, start + 2 + topicLen).toString('utf8');
    const qos = (message[0]! >> 1) & 0x03;
    const payloadAt = start + 2 + topicLen + (qos > 0 ? 2 : 0);
    if (topic === VERSION_TOPIC && message.length > payloadAt) return message.subarray(payloadAt).toString('utf8').replace(/[^\x20-\x7e]/g, '').slice(0, 200);
  }
  return null;
}
