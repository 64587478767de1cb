import type { AccessOptions } from '../service-info.ts';
import { SocketSession, type Framer } from '../socket-session.ts';

/** A MySQL packet: 3-byte little-endian length, sequence id, payload. */
const packetFramer: Framer = (buf) => (buf.length >= 4 && buf.length >= buf.readUIntLE(0, 3) + 4 ? buf.readUIntLE(0, 3) + 4 : 0);

const CLIENT = { LONG_PASSWORD: 0x1, PROTOCOL_41: 0x200, SECURE_CONNECTION: 0x8000, PLUGIN_AUTH: 0x80000 } as const;
const COM_QUIT = Buffer.from([1, 0, 0, 0, 0x01]);

export interface MysqlGreeting {
  version: string;
  /** The server's default authentication plugin. */
  plugin: string;
}

/** Parses the server's Handshake v10; null when it is not one (an error packet, another protocol). */
export function parseHandshake(packet: Buffer): MysqlGreeting | null {
  if (packet.length < 5 || packet[4] !== 0x0a) return null;
  const versionEnd = packet.indexOf(0, 5);
  if (versionEnd < 0) return null;
  const version = packet.subarray(5, versionEnd).toString('latin1');
  // connection id (4), scramble part 1 (8), filler (1), capabilities (2), charset (1), status (2), capabilities (2), scramble length (1), reserved (10)
  let i = versionEnd + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2;
  const scrambleLen = packet[i] ?? 0;
  i += 1 + 10;
  i += Math.max(13, scrambleLen - 8);
  const pluginEnd = packet.indexOf(0, i);
  const plugin = i < packet.length ? packet.subarray(i, pluginEnd > i ? pluginEnd : packet.length).toString('latin1') : 'mysql_native_password';
  return { version, plugin: plugin || 'mysql_native_password' };
}

/** HandshakeResponse41 for `user` with an empty password (empty auth response). */
export function handshakeResponse(user: string, plugin: string): Buffer {
  const caps = Buffer.alloc(4);
  caps.writeUInt32LE(CLIENT.LONG_PASSWORD | CLIENT.PROTOCOL_41 | CLIENT.SECURE_CONNECTION | CLIENT.PLUGIN_AUTH);
  const maxPacket = Buffer.alloc(4);
  maxPacket.writeUInt32LE(1 << 24);
  const payload = Buffer.concat([caps, maxPacket, Buffer.from([45]), Buffer.alloc(23), Buffer.from(`${user}\0`, 'utf8'), Buffer.from([0]), Buffer.from(`${plugin}\0`, 'latin1')]);
  return withHeader(payload, 1);
}

function withHeader(payload: Buffer, seq: number): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, payload]);
}

export interface MysqlLogin {
  user: string;
  outcome: 'in' | 'refused' | 'error';
  reason: string;
  version?: string;
}

/**
 * One login attempt as `user` with an empty password: the server's handshake, our
 * response with an empty auth response, then OK (a login, ended with COM_QUIT) or ERR
 * (refused: 1045 access denied…). An authentication-method switch is answered with an
 * empty response again: an empty password is the same whatever the method.
 */
export async function tryMysqlLogin(host: string, port: number, user: string, o: AccessOptions): Promise<MysqlLogin> {
  const session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal });
  let loggedIn = false;
  try {
    const greeting = await session.read(packetFramer);
    if (greeting[4] === 0xff) return { user, outcome: 'refused', reason: errorText(greeting) };
    const hs = parseHandshake(greeting);
    if (!hs) return { user, outcome: 'error', reason: 'not a MySQL handshake' };
    session.write(handshakeResponse(user, hs.plugin));
    for (let n = 0; n < 4; n++) {
      const reply = await session.read(packetFramer);
      const seq = reply[3]!;
      const kind = reply[4];
      if (kind === 0x00) {
        loggedIn = true;
        return { user, outcome: 'in', reason: `logged in without a password (${hs.plugin})`, version: hs.version };
      }
      if (kind === 0xff) return { user, outcome: 'refused', reason: errorText(reply), version: hs.version };
      if (kind === 0xfe) session.write(withHeader(Buffer.alloc(0), seq + 1)); // auth switch: empty password again
      else if (kind === 0x01 && reply[5] === 0x04) return { user, outcome: 'refused', reason: 'full authentication required (a password is set)', version: hs.version };
    }
    return { user, outcome: 'error', reason: 'no final answer', version: hs.version };
  } finally {
    session.close(loggedIn ? COM_QUIT : undefined);
  }
}

/** "1045 Access denied for user …" from an ERR packet. */
function errorText(packet: Buffer): string {
  const code = packet.length >= 7 ? packet.readUInt16LE(5) : 0;
  const text = packet.subarray(packet[7] === 0x23 ? 13 : 7).toString('utf8').replace(/[^\x20-\x7e]/g, '');
  return `${code} ${text}`.trim().slice(0, 200);
}
