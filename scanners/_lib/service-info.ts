import type { DiscoveredService } from '../../core/plugin-api/index.ts';

export type ServiceName =
  | 'ssh' | 'smtp' | 'ftp' | 'telnet' | 'http' | 'https' | 'tls' | 'redis' | 'mysql' | 'postgresql' | 'pop3' | 'imap'
  | 'nats' | 'mqtt' | 'amqp' | 'epmd' | 'erlang-dist' | 'unknown';

/** An Erlang node as epmd lists it. */
export interface ErlangNode {
  name: string;
  /** Its distribution port. */
  port: number;
}

export interface ServiceInfo {
  service: ServiceName;
  /** First line (or version string) the service sent, printable characters only. */
  banner: string | null;
  /**
   * Whether the service let us in without credentials, where the probe can tell:
   * `none` = an anonymous client is accepted (Redis PING, NATS/MQTT connect).
   */
  auth: 'none' | 'required' | 'unknown';
  /** Protocol facts (TLS version, HTTP Server header, product, version, broker reply…). */
  details: Record<string, string>;
  /**
   * Accounts that got in without a password (PostgreSQL, MySQL/MariaDB; '' is the
   * anonymous account) or with the product's default password (AMQP `guest`).
   */
  openAccounts?: string[];
  /** Erlang nodes listed by epmd. */
  nodes?: ErlangNode[];
}

/** How deep the protocol checks may go. */
export interface AccessOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Try logins (AMQP guest/guest, password-less database accounts). False: identify
   * only; anonymous NATS/MQTT connects still run, as they are how those are identified.
   */
  authChecks: boolean;
  /** Database accounts tried without a password. */
  loginUsers: readonly string[];
}

/** Accounts tried without a password on PostgreSQL and MySQL/MariaDB unless `login_users` says otherwise ('' = anonymous). */
export const DEFAULT_LOGIN_USERS: readonly string[] = ['root', 'postgres', 'admin', 'mysql', ''];

/** The identified service as the engine hands it to later checks (TLS spoken directly, not STARTTLS). */
export function serviceOf(host: string, port: number, info: ServiceInfo): DiscoveredService {
  return { host, port, service: info.service, tls: info.service === 'tls' || info.service === 'https' };
}

/** Printable ASCII of the first line, at most `max` characters. */
export function printable(buf: Buffer, max = 200): string {
  return buf.toString('latin1').split(/\r?\n/)[0]!.replace(/[^\x20-\x7e]/g, '').slice(0, max);
}
