import type { AccessOptions, ServiceInfo } from '../service-info.ts';
import { SocketSession, type Framer } from '../socket-session.ts';

/** One protocol line of NATS (ends with CRLF); a server line is never near this long. */
const lineFramer: Framer = (buf) => {
  const end = buf.indexOf('\r\n');
  if (end >= 0) return end + 2;
  if (buf.length > 64 * 1024) throw new Error('not NATS: no line end');
  return 0;
};

/** The JSON of a NATS `INFO {…}` greeting, or null when `text` is not one. */
export function parseNatsInfo(text: string): Record<string, unknown> | null {
  const m = /^INFO\s+(\{.*\})\s*\r?\n?/.exec(text);
  if (!m) return null;
  try {
    const info = JSON.parse(m[1]!) as unknown;
    return info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Facts worth keeping from INFO (server_id and client ids change every time: left out). */
function detailsOf(info: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['version', 'server_name', 'go', 'jetstream', 'auth_required', 'tls_required', 'max_payload', 'cluster']) {
    if (info[key] !== undefined && info[key] !== null && key !== 'server_name') out[key] = String(info[key]).slice(0, 100);
  }
  if (typeof info.server_name === 'string' && info.server_name !== info.server_id) out.server_name = info.server_name.slice(0, 100);
  return out;
}

/**
 * Identifies NATS from its INFO greeting and checks whether it admits a client without
 * credentials: CONNECT with none, then PING; PONG means admitted, `-ERR
 * 'Authorization Violation'` means credentials are required. Upgrades to TLS first when
 * the server requires it. NATS has no sign-off message: closing the connection is the
 * normal way out. Null when the port does not greet like NATS.
 */
export async function probeNats(host: string, port: number, o: AccessOptions): Promise<ServiceInfo | null> {
  let session: SocketSession;
  try {
    session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal });
  } catch {
    return null;
  }
  let seen: ServiceInfo | null = null;
  try {
    const info = parseNatsInfo((await session.read(lineFramer)).toString('utf8'));
    if (!info) return null;
    const details = detailsOf(info);
    const banner = `NATS ${details.version ?? ''}`.trim();
    seen = { service: 'nats', banner, auth: info.auth_required === true ? 'required' : 'unknown', details };
    if (info.tls_required === true) await session.startTls(host);
    const connect = { verbose: false, pedantic: false, tls_required: info.tls_required === true, name: 'rampart-scanner', lang: 'rampart', version: '1', protocol: 1, echo: false };
    session.write(`CONNECT ${JSON.stringify(connect)}\r\nPING\r\n`);
    for (let lines = 0; lines < 20; lines++) {
      const line = (await session.read(lineFramer)).toString('utf8').trim();
      if (line === 'PONG') return { service: 'nats', banner, auth: 'none', details };
      if (line.startsWith('-ERR')) {
        details.reply = line.slice(0, 200);
        return { service: 'nats', banner, auth: /authori[sz]ation|auth/i.test(line) ? 'required' : 'unknown', details };
      }
      // +OK, INFO updates, PING from the server: keep reading.
      if (line === 'PING') session.write('PONG\r\n');
    }
    return { service: 'nats', banner, auth: 'unknown', details };
  } catch {
    // Identified by its greeting, but the conversation broke off (TLS failed, closed early).
    return seen;
  } finally {
    session.close();
  }
}
