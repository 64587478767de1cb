import { createServer, type Server } from 'node:net';

/** What one client did on the target. */
export interface MqttSession {
  clientId: string;
  username: string | null;
  /** Topics the client subscribed to. */
  subscribed: string[];
  /** Packets it published (a scanner must publish nothing). */
  published: number;
  /** `disconnect`: the client sent DISCONNECT before closing (the polite way out). */
  ending: 'disconnect' | 'dropped' | 'open';
}

export interface MqttTarget {
  port: number;
  sessions: MqttSession[];
  close(): Promise<void>;
}

function readLength(buf: Buffer): { len: number; head: number } | null {
  let len = 0;
  let mul = 1;
  for (let i = 1; i < Math.min(buf.length, 5); i++) {
    len += (buf[i]! & 0x7f) * mul;
    if (!(buf[i]! & 0x80)) return { len, head: i + 1 };
    mul *= 128;
  }
  return null;
}

const str = (s: string) => Buffer.concat([Buffer.from([s.length >> 8, s.length & 0xff]), Buffer.from(s)]);

/**
 * A tiny MQTT 3.1.1 broker for the tests (CI has no Mosquitto): CONNECT is answered
 * with CONNACK 0, or 5 (not authorized) when `requireAuth` and the client sent no user
 * name; SUBSCRIBE with SUBACK, and with the retained `$SYS/broker/version` message
 * when `version` is set. It records what each client did and how it left.
 */
export async function startMqttTarget(opts: { requireAuth: boolean; version?: string }): Promise<MqttTarget> {
  const sessions: MqttSession[] = [];
  const server: Server = createServer((socket) => {
    let buf = Buffer.alloc(0);
    let session: MqttSession | null = null;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (session && session.ending === 'open') session.ending = 'dropped';
    });
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      try {
        handle();
      } catch {
        socket.destroy(); // not MQTT (another probe): drop it, as a broker does
      }
    });
    const handle = () => {
      for (;;) {
        const l = readLength(buf);
        if (!l || buf.length < l.head + l.len) return;
        const packet = buf.subarray(0, l.head + l.len);
        const body = packet.subarray(l.head);
        buf = buf.subarray(l.head + l.len);
        const type = packet[0]! >> 4;
        if (type === 1) {
          if (body.subarray(2, 6).toString() !== 'MQTT') throw new Error('not MQTT');
          const protoLen = body.readUInt16BE(0);
          const flags = body[2 + protoLen + 1]!;
          let i = 2 + protoLen + 4;
          const idLen = body.readUInt16BE(i);
          const clientId = body.subarray(i + 2, i + 2 + idLen).toString();
          i += 2 + idLen;
          const username = flags & 0x80 ? body.subarray(i + 2, i + 2 + body.readUInt16BE(i)).toString() : null;
          session = { clientId, username, subscribed: [], published: 0, ending: 'open' };
          sessions.push(session);
          const refused = opts.requireAuth && username === null;
          socket.write(Buffer.from([0x20, 2, 0, refused ? 5 : 0]));
          if (refused) socket.end();
        } else if (type === 8 && session) {
          const topic = body.subarray(4, 4 + body.readUInt16BE(2)).toString();
          session.subscribed.push(topic);
          socket.write(Buffer.from([0x90, 3, body[0]!, body[1]!, 0]));
          if (topic === '$SYS/broker/version' && opts.version) {
            const payload = Buffer.concat([str(topic), Buffer.from(opts.version)]);
            socket.write(Buffer.concat([Buffer.from([0x31, payload.length]), payload]));
          }
        } else if (type === 3 && session) {
          session.published += 1;
        } else if (type === 14 && session) {
          session.ending = 'disconnect';
          socket.end();
        } else if (!session) throw new Error('first packet must be CONNECT');
      }
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, sessions, close: () => new Promise((r) => server.close(() => r())) };
}
