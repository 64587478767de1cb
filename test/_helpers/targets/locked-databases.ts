import { createServer, type Server } from 'node:net';

export interface LockedDatabase {
  port: number;
  /** User names that tried to log in. */
  attempts: string[];
  /** Password messages received (a password-less check must send none). */
  passwordsSent: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const closer = (server: Server) => () => new Promise<void>((r) => server.close(() => r()));

/**
 * A PostgreSQL server whose every account has a password: SSLRequest is declined
 * ('N'), a StartupMessage is answered with AuthenticationSASL (SCRAM-SHA-256), as a
 * default PostgreSQL 14+ does. It records the users and any password message.
 */
export async function startLockedPostgres(): Promise<LockedDatabase> {
  const db: LockedDatabase = { port: 0, attempts: [], passwordsSent: 0, close: async () => undefined };
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= (started ? 5 : 4)) {
        if (!started) {
          const len = buf.readUInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readUInt32BE(4);
          const body = buf.subarray(8, len);
          buf = buf.subarray(len);
          if (code === 80877103) {
            socket.write('N');
            continue;
          }
          started = true;
          const params = body.toString('utf8').split('\0');
          db.attempts.push(params[params.indexOf('user') + 1] ?? '');
          const sasl = Buffer.from('SCRAM-SHA-256\0\0');
          const msg = Buffer.alloc(9);
          msg.write('R', 0);
          msg.writeUInt32BE(8 + sasl.length, 1);
          msg.writeUInt32BE(10, 5);
          socket.write(Buffer.concat([msg, sasl]));
        } else {
          const len = buf.readUInt32BE(1);
          if (buf.length < len + 1) return;
          if (buf[0] === 0x70) db.passwordsSent += 1; // 'p': PasswordMessage / SASLInitialResponse
          buf = buf.subarray(len + 1);
        }
      }
    });
  });
  db.port = await listen(server);
  db.close = closer(server);
  return db;
}

/**
 * A MariaDB server whose every account has a password: a Handshake v10 (MariaDB
 * 10.11, mysql_native_password), then ERR 1045 "Access denied … (using password: NO)"
 * to an empty auth response. Records users, and any non-empty auth response as a password.
 */
export async function startLockedMysql(): Promise<LockedDatabase> {
  const db: LockedDatabase = { port: 0, attempts: [], passwordsSent: 0, close: async () => undefined };
  const packet = (seq: number, payload: Buffer) => Buffer.concat([Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, seq]), payload]);
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    const scramble = Buffer.alloc(20, 0x41);
    const caps = Buffer.from([0xff, 0xf7]); // lower capability flags
    const hello = Buffer.concat([
      Buffer.from([0x0a]), Buffer.from('5.5.5-10.11.6-MariaDB-test\0'), Buffer.from([1, 0, 0, 0]), scramble.subarray(0, 8), Buffer.from([0]),
      caps, Buffer.from([45, 2, 0]), Buffer.from([0xff, 0x81]), Buffer.from([21]), Buffer.alloc(10), scramble.subarray(8), Buffer.from([0]), Buffer.from('mysql_native_password\0'),
    ]);
    socket.write(packet(0, hello));
    socket.once('data', (data) => {
      const body = data.subarray(4);
      const userEnd = body.indexOf(0, 32);
      const user = body.subarray(32, userEnd).toString();
      db.attempts.push(user);
      if (body[userEnd + 1]! > 0) db.passwordsSent += 1;
      const msg = Buffer.from(`Access denied for user '${user}'@'127.0.0.1' (using password: NO)`);
      socket.end(packet(2, Buffer.concat([Buffer.from([0xff, 0x15, 0x04, 0x23]), Buffer.from('28000'), msg])));
    });
  });
  db.port = await listen(server);
  db.close = closer(server);
  return db;
}
