import { headerVersion } from './protocols/amqp.ts';
import { parseNatsInfo } from './protocols/nats.ts';
import { printable, type ServiceInfo } from './service-info.ts';

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
  const nats = parseNatsInfo(text);
  if (nats) return { service: 'nats', banner: `NATS ${String(nats.version ?? '')}`.trim(), auth: nats.auth_required === true ? 'required' : 'unknown', details: {} };
  if (/^220[ -]/.test(text)) {
    if (/ftp/i.test(line)) return { service: 'ftp', banner: line, auth: 'unknown', details: {} };
    if (/smtp|mail|postfix|exim|sendmail/i.test(line) || [25, 465, 587, 2525].includes(port)) return { service: 'smtp', banner: line, auth: 'unknown', details: {} };
    return { service: 'ftp', banner: line, auth: 'unknown', details: {} };
  }
  if (text.startsWith('+OK')) return { service: 'pop3', banner: line, auth: 'unknown', details: {} };
  if (text.startsWith('* OK')) return { service: 'imap', banner: line, auth: 'unknown', details: {} };
  return { service: 'unknown', banner: line || null, auth: 'unknown', details: {} };
}

/**
 * Recognises a service from its answer to the HTTP, Redis or PostgreSQL probe (any
 * probe: an HTTP server answers PING with HTTP, and an AMQP broker answers anything
 * that is not its protocol header with its own header).
 */
export function classifyReply(data: Buffer, probe: 'http' | 'redis' | 'postgresql', tls: boolean): ServiceInfo | null {
  if (!data.length) return null;
  const text = data.toString('latin1');
  if (text.startsWith('HTTP/')) {
    const server = /\r\nserver:\s*([^\r\n]*)/i.exec(text)?.[1]?.slice(0, 200);
    return { service: tls ? 'https' : 'http', banner: printable(data), auth: 'unknown', details: { status_line: printable(data), ...(server ? { server } : {}) } };
  }
  const amqp = headerVersion(data);
  if (amqp) return { service: 'amqp', banner: `AMQP ${amqp}`, auth: 'unknown', details: { protocol: `AMQP ${amqp}` } };
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
