import type { AccessOptions } from '../service-info.ts';
import { SocketSession, type Framer } from '../socket-session.ts';

/** SSLRequest: length 8, code 80877103. */
export const PG_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
/** Terminate: the client's normal goodbye. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
const SSL_ANSWER: Framer = () => 1;
/** A backend message: type byte, then a length that counts itself. */
const messageFramer: Framer = (buf) => {
  if (buf.length < 5) return 0;
  const len = buf.readUInt32BE(1);
  if (len < 4 || len > 1 << 20) throw new Error('not PostgreSQL: bad message length');
  return buf.length >= len + 1 ? len + 1 : 0;
};

/** StartupMessage of protocol 3.0 for `user` into the `postgres` database. */
export function startupMessage(user: string): Buffer {
  const params = Buffer.from(`user\0${user}\0database\0postgres\0application_name\0rampart-scanner\0\0`, 'utf8');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(params.length + 8, 0);
  head.writeUInt32BE(196608, 4);
  return Buffer.concat([head, params]);
}

/** An ErrorResponse's fields by code letter (S severity, C SQLSTATE, M message…). */
export function errorFields(message: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 5;
  while (i < message.length && message[i] !== 0) {
    const end = message.indexOf(0, i + 1);
    if (end < 0) break;
    out[String.fromCharCode(message[i]!)] = message.subarray(i + 1, end).toString('utf8');
    i = end + 1;
  }
  return out;
}

/** Authentication request codes that mean "a password or another credential is needed". */
const AUTH_METHODS: Record<number, string> = { 2: 'Kerberos', 3: 'cleartext password', 5: 'MD5 password', 7: 'GSSAPI', 9: 'SSPI', 10: 'SASL (SCRAM)' };

export interface PgLogin {
  user: string;
  /** `in`: the session was ready for queries without any credential. */
  outcome: 'in' | 'credential' | 'refused' | 'error';
  /** The method the server asked for, or its error (SQLSTATE and message). */
  reason: string;
  serverVersion?: string;
  tls: boolean;
}

/**
 * One password-less login attempt as `user`: SSLRequest first (TLS when the server
 * offers it, as clients do), StartupMessage, then the server's answer. AuthenticationOk
 * followed by ReadyForQuery is a login; a password request is left unanswered (the
 * connection is closed, no password is ever sent); an error is a refusal. A login is
 * ended with Terminate.
 */
export async function tryPgLogin(host: string, port: number, user: string, o: AccessOptions): Promise<PgLogin> {
  const session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal });
  let tls = false;
  let authenticated = false;
  let serverVersion: string | undefined;
  try {
    session.write(PG_SSL_REQUEST);
    const answer = (await session.read(SSL_ANSWER))[0];
    if (answer === 0x53) {
      await session.startTls(host);
      tls = true;
    } else if (answer !== 0x4e) return { user, outcome: 'error', reason: 'unexpected answer to SSLRequest', tls };
    session.write(startupMessage(user));
    for (let n = 0; n < 64; n++) {
      const message = await session.read(messageFramer);
      const type = String.fromCharCode(message[0]!);
      if (type === 'R') {
        const code = message.readUInt32BE(5);
        if (code === 0) authenticated = true;
        else return { user, outcome: 'credential', reason: AUTH_METHODS[code] ?? `authentication method ${code}`, tls };
      } else if (type === 'S') {
        const [name, value] = message.subarray(5).toString('utf8').split('\0');
        if (name === 'server_version') serverVersion = value;
      } else if (type === 'E') {
        const f = errorFields(message);
        // Authenticated, then refused the `postgres` database: the account still got in.
        if (authenticated && f.C === '3D000') return { user, outcome: 'in', reason: 'authenticated (database postgres missing)', serverVersion, tls };
        return { user, outcome: 'refused', reason: `${f.C ?? ''} ${f.M ?? ''}`.trim().slice(0, 200), tls };
      } else if (type === 'Z' && authenticated) {
        return { user, outcome: 'in', reason: 'ready for queries without a password', serverVersion, tls };
      }
    }
    return { user, outcome: 'error', reason: 'no ReadyForQuery', tls };
  } finally {
    session.close(authenticated ? TERMINATE : undefined);
  }
}
