/**
 * A SIEM integration as the service hands it to routes, forwarders and renderers. Kept
 * apart from the repository so routes never import it.
 */
export type SiemProtocol = 'tcp_tls' | 'tcp' | 'udp';
export type SiemFormat = 'cef' | 'rfc5424';

/** An integration as stored; the TLS client key stays sealed here, the service opens it. */
export interface SiemRecord {
  id: string;
  tenantId: string;
  name: string;
  type: 'syslog';
  protocol: SiemProtocol;
  host: string;
  port: number;
  format: SiemFormat;
  events: string[];
  facility: number;
  active: boolean;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKeySealed: string | null;
  tlsServerName: string | null;
  tlsVerify: boolean;
  lastError: string | null;
  lastErrorAt: number | null;
  lastSentAt: number | null;
  createdAt: number;
  updatedAt: number;
}
