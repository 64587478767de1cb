import { createServer, type Server } from 'node:net';
import { CONNECTION, amqpFramer, longstr, methodFrame, methodOf, shortstr, table } from '../../../scanners/_lib/protocols/amqp-frames.ts';

export interface AmqpSession {
  /** The PLAIN response the client sent ("\0user\0password"), if any. */
  login: string | null;
  /** The client sent Connection.Close (accepted login) or Close-Ok (refused one) before leaving. */
  leftCleanly: boolean;
  /** Any method outside the connection class: a scanner must send none. */
  otherMethods: number;
}

export interface AmqpTarget {
  port: number;
  sessions: AmqpSession[];
  close(): Promise<void>;
}

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);

/**
 * An AMQP 0-9-1 broker that stops at the connection handshake: Connection.Start (as
 * RabbitMQ's, product `TestMQ`), then either Tune/Open-Ok/Close-Ok for guest/guest
 * when `acceptGuest`, or Connection.Close 403 ACCESS_REFUSED (what RabbitMQ answers a
 * guest login from another host). Records each client's login and how it left.
 */
export async function startAmqpTarget(opts: { acceptGuest: boolean }): Promise<AmqpTarget> {
  const sessions: AmqpSession[] = [];
  const server: Server = createServer((socket) => {
    const session: AmqpSession = { login: null, leftCleanly: false, otherMethods: 0 };
    sessions.push(session);
    let buf = Buffer.alloc(0);
    let greeted = false;
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!greeted) {
        if (buf.length < 8) return;
        if (buf.subarray(0, 8).toString('latin1') !== 'AMQP\0\0\x09\x01') return void socket.end(Buffer.from('AMQP\0\0\x09\x01', 'latin1'));
        greeted = true;
        buf = buf.subarray(8);
        const props = table({ product: 'TestMQ', version: '9.9.9', platform: 'Node.js' });
        socket.write(methodFrame(10, CONNECTION.start, Buffer.concat([Buffer.from([0, 9]), props, longstr('PLAIN AMQPLAIN'), longstr('en_US')])));
      }
      for (;;) {
        const size = buf.length ? amqpFramer(buf) : 0;
        if (!size) return;
        const method = methodOf(buf.subarray(0, size));
        buf = buf.subarray(size);
        if (!method) continue;
        if (method.classId !== 10) session.otherMethods += 1;
        else if (method.methodId === CONNECTION.startOk) {
          const a = method.args;
          let i = 4 + a.readUInt32BE(0);
          i += 1 + a[i]!;
          const len = a.readUInt32BE(i);
          session.login = a.subarray(i + 4, i + 4 + len).toString('latin1');
          if (opts.acceptGuest && session.login === '\0guest\0guest') socket.write(methodFrame(10, CONNECTION.tune, Buffer.concat([u16(2047), Buffer.from([0, 2, 0, 0]), u16(60)])));
          else socket.write(methodFrame(10, CONNECTION.close, Buffer.concat([u16(403), shortstr('ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN'), u16(0), u16(0)])));
        } else if (method.methodId === CONNECTION.open) socket.write(methodFrame(10, CONNECTION.openOk, shortstr('')));
        else if (method.methodId === CONNECTION.close) {
          session.leftCleanly = true;
          socket.end(methodFrame(10, CONNECTION.closeOk, Buffer.alloc(0)));
        } else if (method.methodId === CONNECTION.closeOk) {
          session.leftCleanly = true;
          socket.end();
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, sessions, close: () => new Promise((r) => server.close(() => r())) };
}
