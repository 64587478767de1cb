import type { AccessOptions, ServiceInfo } from '../service-info.ts';
import { SocketSession, type Framer } from '../socket-session.ts';

/** One RESP reply: a +/-/: line, or a $bulk string with its payload. */
export const respFramer: Framer = (buf) => {
  const end = buf.indexOf('\r\n');
  if (end < 0) {
    if (buf.length > 64 * 1024) throw new Error('not RESP: no line end');
    return 0;
  }
  if (buf[0] !== 0x24) return end + 2; // '$'
  const len = Number(buf.subarray(1, end).toString('latin1'));
  if (!Number.isInteger(len)) throw new Error('not RESP: bad bulk length');
  if (len < 0) return end + 2;
  return buf.length >= end + 2 + len + 2 ? end + 2 + len + 2 : 0;
};

/** The fields of an INFO section (`key:value` lines). */
export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^([a-z_]+):(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/**
 * Redis without authentication and its version: PING (PONG: no authentication;
 * NOAUTH/WRONGPASS/DENIED: protected), then, when admitted, `INFO server` for the
 * version and mode (read-only), then QUIT. Null when the port does not answer RESP.
 */
export async function probeRedis(host: string, port: number, o: AccessOptions): Promise<ServiceInfo | null> {
  let session: SocketSession;
  try {
    session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal });
  } catch {
    return null;
  }
  let seen: ServiceInfo | null = null;
  try {
    session.write('PING\r\n');
    const reply = (await session.read(respFramer)).toString('latin1').trim().slice(0, 200);
    if (reply.startsWith('-')) {
      const required = /NOAUTH|WRONGPASS|DENIED|auth/i.test(reply);
      return (seen = { service: 'redis', banner: reply, auth: required ? 'required' : 'unknown', details: { reply } });
    }
    if (!reply.startsWith('+PONG')) return null;
    const details: Record<string, string> = { reply };
    seen = { service: 'redis', banner: reply, auth: 'none', details };
    session.write('INFO server\r\n');
    const info = parseInfo((await session.read(respFramer)).toString('latin1'));
    for (const key of ['redis_version', 'redis_mode', 'os']) if (info[key]) details[key] = info[key]!.slice(0, 100);
    if (details.redis_version) seen.banner = `Redis ${details.redis_version}`;
    return seen;
  } catch {
    return seen;
  } finally {
    session.close(seen ? 'QUIT\r\n' : undefined);
  }
}
