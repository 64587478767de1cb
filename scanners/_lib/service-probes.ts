import { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { DiscoveredService } from '../../core/plugin-api/index.ts';

export type ServiceName = 'ssh' | 'smtp' | 'ftp' | 'telnet' | 'http' | 'https' | 'tls' | 'redis' | 'mysql' | 'postgresql' | 'pop3' | 'imap' | 'unknown';

export interface ServiceInfo {
  service: ServiceName;
  /** First line (or version string) the service sent, printable characters only. */
  banner: string | null;
  /** Whether the service let us in without credentials, where the probe can tell. */
  auth: 'none' | 'required' | 'unknown';
  /** Protocol facts (TLS version, HTTP Server header, MySQL version, Redis reply…). */
  details: Record<string, string>;
}

/** The identified service as the engine hands it to later checks (TLS spoken directly, not STARTTLS). */
export function serviceOf(host: string, port: number, info: ServiceInfo): DiscoveredService {
  return { host, port, service: info.service, tls: info.service === 'tls' || info.service === 'https' };
}

export interface ProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** How long to wait for a service that speaks first (SSH, SMTP, FTP, MySQL). */
  bannerWaitMs?: number;
}

/**
 * Opens a connection (plain or TLS), optionally sends `payload`, and collects what the
 * peer sends until it closes, `maxBytes` arrive, or `waitMs` passes. Never throws for
 * network errors: an empty buffer means "nothing said".
 */
export function exchange(host: string, port: number, o: { payload?: Buffer | string; tls?: boolean; waitMs: number; maxBytes?: number; signal?: AbortSignal; servername?: string }): Promise<{ data: Buffer; tls?: { protocol: string | null; cipher: string } }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tlsInfo: { protocol: string | null; cipher: string } | undefined;
    let done = false;
    const socket: Socket | TLSSocket = o.tls
      ? tlsConnect({ host, port, rejectUnauthorized: false, servername: o.servername && !/^[\d.:]+$/.test(o.servername) ? o.servername : undefined })
      : new Socket().connect({ host, port });
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', finish);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), tls: tlsInfo });
    };
    const timer = setTimeout(finish, o.waitMs);
    o.signal?.addEventListener('abort', finish, { once: true });
    socket.once(o.tls ? 'secureConnect' : 'connect', () => {
      if (o.tls) {
        const t = socket as TLSSocket;
        tlsInfo = { protocol: t.getProtocol(), cipher: t.getCipher()?.name ?? '' };
      }
      if (o.payload !== undefined) socket.write(o.payload);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      // One reply is all a probe needs; let a little more arrive if it came split.
      if (size >= (o.maxBytes ?? 4096)) finish();
      else setTimeout(finish, 50);
    });
    socket.once('error', finish);
    socket.once('close', finish);
  });
}

function printable(buf: Buffer, max = 200): string {
  return buf.toString('latin1').split(/\r?\n/)[0]!.replace(/[^\x20-\x7e]/g, '').slice(0, max);
}

/** Recognises a service from what it said first (nothing sent). */
export function classifyGreeting(data: Buffer, port: number): ServiceInfo | null {
  if (!data.length) return null;
  const text = data.toString('latin1');
  const line = printable(data);
  if (text.startsWith('SSH-')) return { service: 'ssh', banner: line, auth: 'unknown', details: {} };
  if (data[0] === 0xff && data.length >= 3 && data[1]! >= 0xfb) return { service: 'telnet', banner: null, auth: 'unknown', details: {} };
  if (data.length > 5 && data.readUIntLE(0, 3) === data.length - 4 && data[3] === 0) {
    if (data[4] === 0x0a) {
      const end = data.indexOf(0, 5);
      const version = data.subarray(5, end > 5 ? end : undefined).toString('latin1');
      return { service: 'mysql', banner: version, auth: 'required', details: { version, flavour: /mariadb/i.test(version) ? 'MariaDB' : 'MySQL' } };
    }
    if (data[4] === 0xff) return { service: 'mysql', banner: printable(data.subarray(7)), auth: 'required', details: { refused: printable(data.subarray(7)) } };
  }
  if (/^220[ -]/.test(text)) {
    if (/ftp/i.test(line)) return { service: 'ftp', banner: line, auth: 'unknown', details: {} };
    if (/smtp|mail|postfix|exim|sendmail/i.test(line) || [25, 465, 587, 2525].includes(port)) return { service: 'smtp', banner: line, auth: 'unknown', details: {} };
    return { service: 'ftp', banner: line, auth: 'unknown', details: {} };
  }
  if (text.startsWith('+OK')) return { service: 'pop3', banner: line, auth: 'unknown', details: {} };
  if (text.startsWith('* OK')) return { service: 'imap', banner: line, auth: 'unknown', details: {} };
  return { service: 'unknown', banner: line || null, auth: 'unknown', details: {} };
}

/** Recognises a service from its answer to one of our probes (any probe: an HTTP server answers PING with HTTP). */
export function classifyReply(data: Buffer, probe: 'http' | 'redis' | 'postgresql', tls: boolean): ServiceInfo | null {
  if (!data.length) return null;
  const text = data.toString('latin1');
  if (text.startsWith('HTTP/')) {
    const server = /\r\nserver:\s*([^\r\n]*)/i.exec(text)?.[1]?.slice(0, 200);
    return { service: tls ? 'https' : 'http', banner: printable(data), auth: 'unknown', details: { status_line: printable(data), ...(server ? { server } : {}) } };
  }
  if (probe === 'redis' && /^[+-]/.test(text)) {
    const reply = printable(data);
    if (reply.startsWith('+PONG')) return { service: 'redis', banner: reply, auth: 'none', details: { reply } };
    if (/NOAUTH|WRONGPASS|auth/i.test(reply)) return { service: 'redis', banner: reply, auth: 'required', details: { reply } };
    return { service: 'redis', banner: reply, auth: /DENIED/.test(reply) ? 'required' : 'unknown', details: { reply } };
  }
  if (probe === 'postgresql' && data.length === 1 && (data[0] === 0x53 || data[0] === 0x4e)) {
    return { service: 'postgresql', banner: null, auth: 'unknown', details: { ssl: data[0] === 0x53 ? 'supported' : 'not supported' } };
  }
  if (probe === 'postgresql' && data[0] === 0x45) return { service: 'postgresql', banner: printable(data.subarray(5)), auth: 'unknown', details: {} };
  return null;
}

// PostgreSQL SSLRequest: length 8, code 80877103.
const PG_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const HINTS: Record<number, Array<'redis' | 'postgresql' | 'tls' | 'http'>> = {
  6379: ['redis', 'http', 'tls'], 5432: ['postgresql', 'tls', 'http'], 443: ['tls', 'http'], 8443: ['tls', 'http'], 9443: ['tls', 'http'],
  465: ['tls'], 993: ['tls'], 995: ['tls'], 636: ['tls'],
};
const DEFAULT_ORDER: Array<'redis' | 'postgresql' | 'tls' | 'http'> = ['http', 'tls', 'redis', 'postgresql'];

/**
 * Identifies the service on an open port: first listen for a greeting (SSH, SMTP, FTP,
 * MySQL/MariaDB, telnet, POP3, IMAP), then, if it stays silent, try HTTP, TLS (and HTTP
 * inside it), Redis (PING) and PostgreSQL (SSLRequest), ordered by the port's usual
 * service. Each probe is its own short connection.
 */
export async function probeService(host: string, port: number, opts: ProbeOptions): Promise<ServiceInfo> {
  const wait = opts.timeoutMs;
  const greeting = await exchange(host, port, { waitMs: opts.bannerWaitMs ?? Math.min(wait, 1500), signal: opts.signal });
  const greeted = classifyGreeting(greeting.data, port);
  if (greeted) return greeted;
  for (const probe of HINTS[port] ?? DEFAULT_ORDER) {
    if (opts.signal?.aborted) break;
    if (probe === 'tls') {
      const r = await exchange(host, port, { tls: true, payload: `HEAD / HTTP/1.0\r\nHost: ${host}\r\n\r\n`, waitMs: wait, signal: opts.signal, servername: host });
      if (r.tls) {
        const http = classifyReply(r.data, 'http', true);
        const details = { tls_protocol: r.tls.protocol ?? '', cipher: r.tls.cipher, ...(http?.details ?? {}) };
        return { service: http ? 'https' : 'tls', banner: http?.banner ?? null, auth: 'unknown', details };
      }
      continue;
    }
    const payload = probe === 'http' ? `HEAD / HTTP/1.0\r\nHost: ${host}\r\n\r\n` : probe === 'redis' ? 'PING\r\n' : PG_SSL_REQUEST;
    const r = await exchange(host, port, { payload, waitMs: wait, signal: opts.signal, maxBytes: 2048 });
    // A service that greets first may only have spoken after the greeting wait: its greeting still tells.
    const found = classifyReply(r.data, probe === 'http' ? 'http' : probe, false) ?? classifyGreeting(r.data, port);
    if (found && found.service !== 'unknown') return found;
  }
  return { service: 'unknown', banner: null, auth: 'unknown', details: {} };
}
