import Joi from 'joi';
import { STORED_EVENT_KINDS } from '../../core/domain/event-kinds.ts';
import { idPattern } from '../../core/ids.ts';
import type { SiemRecord } from '../../core/siem/siem-views.ts';
import { toIso } from '../../core/time.ts';

/** Kinds an integration may forward: every stored kind but a webhook's own test delivery. */
export const SIEM_EVENT_KINDS = STORED_EVENT_KINDS.filter((k) => k !== 'webhook.test');

export const siemIdParams = Joi.object({ id: Joi.string().pattern(idPattern('siem')).required() });

const pem = (what: string) => Joi.string().max(65536).pattern(/-----BEGIN [A-Z0-9 ]+-----/).allow(null).description(what);

const tlsInput = Joi.object({
  ca: pem('CA certificate(s) (PEM) the collector\'s certificate must chain to; default: the system trust store.'),
  cert: pem('Client certificate (PEM) for mutual TLS.'),
  key: pem('Client private key (PEM); write-only, encrypted at rest.'),
  server_name: Joi.string().hostname().allow(null).description('Name the collector\'s certificate must carry (and SNI); default: host.'),
  verify: Joi.boolean().description('Verify the collector\'s certificate and name (default true). false accepts any certificate.'),
}).label('SiemTlsInput');

const fields = {
  name: Joi.string().trim().min(1).max(200),
  type: Joi.string().valid('syslog').description('Only syslog; default syslog.'),
  protocol: Joi.string().valid('tcp_tls', 'tcp', 'udp').description('Default tcp_tls (RFC 5425). tcp uses RFC 6587 octet counting; udp one message per datagram (RFC 5426).'),
  host: Joi.string().hostname(),
  port: Joi.number().integer().min(1).max(65535),
  format: Joi.string().valid('cef', 'rfc5424'),
  events: Joi.array().items(Joi.string().valid(...SIEM_EVENT_KINDS)).min(1).unique(),
  facility: Joi.number().integer().min(0).max(23).description('Syslog facility code; default 16 (local0).'),
  active: Joi.boolean(),
  tls: tlsInput,
};

export const createSiemPayload = Joi.object({
  ...fields,
  host: fields.host.required(),
  port: fields.port.required(),
  format: fields.format.required(),
  events: fields.events.required(),
}).label('SiemIntegrationCreate');

export const updateSiemPayload = Joi.object(fields).min(1).label('SiemIntegrationUpdate');

export const siemSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().valid('syslog').required(),
  protocol: Joi.string().valid('tcp_tls', 'tcp', 'udp').required(),
  host: Joi.string().required(),
  port: Joi.number().integer().required(),
  format: Joi.string().valid('cef', 'rfc5424').required(),
  events: Joi.array().items(Joi.string()).required(),
  facility: Joi.number().integer().required(),
  active: Joi.boolean().required(),
  tls: Joi.object({
    ca_configured: Joi.boolean().required(),
    client_cert_configured: Joi.boolean().required(),
    client_key_configured: Joi.boolean().required(),
    server_name: Joi.string().allow(null).required(),
    verify: Joi.boolean().required(),
  }).allow(null).required(),
  status: Joi.object({
    last_sent_at: Joi.string().isoDate().allow(null).required(),
    last_error: Joi.string().allow(null).required(),
    last_error_at: Joi.string().isoDate().allow(null).required(),
  }).required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).label('SiemIntegration');

export const siemTestSchema = Joi.object({
  delivered: Joi.boolean().required(),
  error: Joi.string().allow(null).required(),
  duration_ms: Joi.number().integer().min(0).required(),
  message: Joi.string().required(),
}).label('SiemTestResult');

/** The API view: PEM material is never echoed, only whether it is set. */
export function siemView(r: SiemRecord) {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    protocol: r.protocol,
    host: r.host,
    port: r.port,
    format: r.format,
    events: r.events,
    facility: r.facility,
    active: r.active,
    tls: r.protocol === 'tcp_tls'
      ? { ca_configured: r.tlsCa !== null, client_cert_configured: r.tlsCert !== null, client_key_configured: r.tlsKeySealed !== null, server_name: r.tlsServerName, verify: r.tlsVerify }
      : null,
    status: { last_sent_at: toIso(r.lastSentAt), last_error: r.lastError, last_error_at: toIso(r.lastErrorAt) },
    created_at: toIso(r.createdAt)!,
    updated_at: toIso(r.updatedAt)!,
  };
}
