/**
 * The notification plugin's SMTP settings (`executors.notification.smtp`, handed in as
 * `ctx.settings.smtp`): `{host, port?, secure?, starttls?|requireTLS?, user?, password?,
 * from, tls?: {rejectUnauthorized?, ca?}}`. The whole object is a secret option because
 * it holds the password.
 */
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  requireTls: boolean;
  user: string | null;
  password: string | null;
  from: string;
  tls: { rejectUnauthorized: boolean; ca: string[] };
}

/** Why the settings cannot be used; the run fails `smtp_not_configured` with this message. */
export class SmtpNotConfigured extends Error {
  readonly code = 'smtp_not_configured';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `settings.smtp`; throws SmtpNotConfigured naming what is missing (never a value). */
export function smtpSettingsOf(settings: Readonly<Record<string, unknown>>): SmtpSettings {
  const smtp = settings.smtp;
  if (!isObject(smtp) || Object.keys(smtp).length === 0) {
    throw new SmtpNotConfigured('no SMTP server is configured (executors.notification.smtp)');
  }
  if (typeof smtp.host !== 'string' || smtp.host === '') throw new SmtpNotConfigured('executors.notification.smtp.host is not set');
  if (typeof smtp.from !== 'string' || smtp.from === '' || /[\r\n]/.test(smtp.from)) throw new SmtpNotConfigured('executors.notification.smtp.from is not set (or not one line)');
  const secure = smtp.secure === true;
  const port = smtp.port === undefined ? (secure ? 465 : 587) : Number(smtp.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new SmtpNotConfigured('executors.notification.smtp.port is not a port number');
  const tls = isObject(smtp.tls) ? smtp.tls : {};
  const ca = tls.ca === undefined ? [] : Array.isArray(tls.ca) ? tls.ca.map(String) : [String(tls.ca)];
  return {
    host: smtp.host,
    port,
    secure,
    requireTls: smtp.starttls === true || smtp.requireTLS === true,
    user: typeof smtp.user === 'string' && smtp.user !== '' ? smtp.user : null,
    password: typeof smtp.password === 'string' ? smtp.password : null,
    from: smtp.from,
    tls: { rejectUnauthorized: tls.rejectUnauthorized !== false, ca },
  };
}

/** Nodemailer transport options, with every wait bounded by the run's time limit. */
export function transportOptions(s: SmtpSettings, timeoutMs: number): SMTPTransport.Options {
  const wait = Math.max(1, Math.min(timeoutMs, 30_000));
  return {
    host: s.host,
    port: s.port,
    secure: s.secure,
    requireTLS: s.requireTls,
    ...(s.user ? { auth: { user: s.user, pass: s.password ?? '' } } : {}),
    tls: { rejectUnauthorized: s.tls.rejectUnauthorized, ...(s.tls.ca.length ? { ca: s.tls.ca } : {}) },
    connectionTimeout: wait,
    greetingTimeout: wait,
    socketTimeout: wait,
    // Message parts are strings we rendered; nodemailer must never read files or URLs for them.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
