import { exchange } from './exchange.ts';
import { passwordlessLogins } from './password-less-logins.ts';
import { probeAmqp } from './protocols/amqp.ts';
import { probeEpmd } from './protocols/epmd.ts';
import { probeMqtt } from './protocols/mqtt.ts';
import { probeNats } from './protocols/nats.ts';
import { PG_SSL_REQUEST } from './protocols/postgresql.ts';
import { probeRedis } from './protocols/redis.ts';
import { classifyGreeting, classifyReply } from './service-classify.ts';
import { DEFAULT_LOGIN_USERS, type AccessOptions, type ServiceInfo } from './service-info.ts';

export { exchange } from './exchange.ts';
export { classifyGreeting, classifyReply } from './service-classify.ts';
export { serviceOf, type ServiceInfo, type ServiceName } from './service-info.ts';

export interface ProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** How long to wait for a service that speaks first (SSH, SMTP, FTP, MySQL, NATS). */
  bannerWaitMs?: number;
  /** Try logins (AMQP guest/guest, password-less database accounts); default true. */
  authChecks?: boolean;
  /** Database accounts tried without a password (default {@link DEFAULT_LOGIN_USERS}). */
  loginUsers?: readonly string[];
}

type Probe = 'http' | 'tls' | 'redis' | 'postgresql' | 'mqtt' | 'amqp' | 'epmd';

/** Probes tried first, one after the other, on a port's usual service. */
const HINTS: Record<number, Probe[]> = {
  6379: ['redis'], 5432: ['postgresql'], 1883: ['mqtt'], 5672: ['amqp'], 4369: ['epmd'],
  443: ['tls'], 8443: ['tls'], 9443: ['tls'], 465: ['tls'], 993: ['tls'], 995: ['tls'], 636: ['tls'], 5671: ['tls'], 8883: ['tls'],
};
/** Every probe, in the order their answers are trusted when several run at once. */
const ALL: Probe[] = ['http', 'tls', 'redis', 'postgresql', 'mqtt', 'amqp', 'epmd'];

async function runProbe(probe: Probe, host: string, port: number, o: AccessOptions): Promise<ServiceInfo | null> {
  const wait = o.timeoutMs;
  switch (probe) {
    case 'redis':
      return probeRedis(host, port, o);
    case 'mqtt':
      return probeMqtt(host, port, o);
    case 'amqp':
      return probeAmqp(host, port, o);
    case 'epmd':
      return probeEpmd(host, port, o);
    case 'tls': {
      const r = await exchange(host, port, { tls: true, payload: `HEAD / HTTP/1.0\r\nHost: ${host}\r\n\r\n`, waitMs: wait, signal: o.signal, servername: host });
      if (!r.tls) return null;
      const http = classifyReply(r.data, 'http', true);
      const details = { tls_protocol: r.tls.protocol ?? '', cipher: r.tls.cipher, ...(http?.details ?? {}) };
      return { service: http ? 'https' : 'tls', banner: http?.banner ?? null, auth: 'unknown', details };
    }
    case 'http':
    case 'postgresql': {
      const payload = probe === 'http' ? `HEAD / HTTP/1.0\r\nHost: ${host}\r\n\r\n` : PG_SSL_REQUEST;
      const r = await exchange(host, port, { payload, waitMs: wait, signal: o.signal, maxBytes: 2048 });
      // A service that greets first may only have spoken after the greeting wait: its greeting still tells.
      const found = classifyReply(r.data, probe, false) ?? classifyGreeting(r.data, port);
      return found && found.service !== 'unknown' ? found : null;
    }
  }
}

/**
 * What a service identified by a greeting or a one-message probe is worth a second
 * conversation for: NATS (does it admit a client without credentials), AMQP seen only
 * through its header (the full handshake), and the databases (password-less logins).
 */
async function inspect(host: string, port: number, info: ServiceInfo, o: AccessOptions): Promise<ServiceInfo> {
  if (info.service === 'nats') return (await probeNats(host, port, o)) ?? info;
  if (info.service === 'amqp' && !info.details.product) return (await probeAmqp(host, port, o)) ?? info;
  if ((info.service === 'mysql' || info.service === 'postgresql') && o.authChecks && !info.details.refused) {
    const survey = await passwordlessLogins(info.service, host, port, o);
    const details: Record<string, string> = { ...info.details, logins_tried: survey.attempts.map((a) => `${a.user || '(anonymous)'}: ${a.outcome === 'in' ? 'in' : a.reason}`).join('; ').slice(0, 1000) };
    if (survey.version && !details.version) details.version = survey.version;
    const banner = info.banner ?? (info.service === 'postgresql' && survey.version ? `PostgreSQL ${survey.version}` : null);
    return { ...info, details, banner, auth: survey.open.length ? 'none' : info.auth, openAccounts: survey.open };
  }
  return info;
}

/**
 * Identifies the service on an open port: first listen for a greeting (SSH, SMTP, FTP,
 * MySQL/MariaDB, NATS, telnet, POP3, IMAP); if it stays silent, try the probes of the
 * port's usual service one by one, then every other probe at once (HTTP, TLS, Redis,
 * PostgreSQL, MQTT, AMQP, epmd; each its own connection), trusting them in that order.
 * Brokers and databases then get their access checks (see {@link inspect}).
 */
export async function probeService(host: string, port: number, opts: ProbeOptions): Promise<ServiceInfo> {
  const o: AccessOptions = { timeoutMs: opts.timeoutMs, signal: opts.signal, authChecks: opts.authChecks !== false, loginUsers: opts.loginUsers ?? DEFAULT_LOGIN_USERS };
  const greeting = await exchange(host, port, { waitMs: opts.bannerWaitMs ?? Math.min(opts.timeoutMs, 1500), signal: opts.signal });
  const greeted = classifyGreeting(greeting.data, port);
  if (greeted) return inspect(host, port, greeted, o);
  const hinted = HINTS[port] ?? [];
  for (const probe of hinted) {
    if (opts.signal?.aborted) break;
    const found = await runProbe(probe, host, port, o);
    if (found) return inspect(host, port, found, o);
  }
  if (opts.signal?.aborted) return { service: 'unknown', banner: null, auth: 'unknown', details: {} };
  const rest = ALL.filter((p) => !hinted.includes(p));
  const answers = await Promise.all(rest.map((p) => runProbe(p, host, port, o).catch(() => null)));
  const found = answers.find((a) => a !== null);
  return found ? inspect(host, port, found, o) : { service: 'unknown', banner: null, auth: 'unknown', details: {} };
}
