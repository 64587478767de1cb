/**
 * Sends one email through the admin's SMTP server with nodemailer, and turns SMTP
 * failures into run results. A transport per run: notifications are rare, and a pooled
 * connection would outlive the run's abort signal.
 */
import type Nodemailer from 'nodemailer';
import { createRequire } from 'node:module';
import type { ExecutorContext, ExecutorResult } from '../../core/plugin-api/index.ts';
import { failed } from '../_lib/http-result.ts';
import type { EmailMessage } from './email-message.ts';
import { transportOptions, type SmtpSettings } from './smtp-settings.ts';

// nodemailer is loaded by the first email, not by every process that loads the executors.
const requireLazily = createRequire(import.meta.url);

export interface SentEmail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

const addressText = (a: unknown): string => (typeof a === 'string' ? a : String((a as { address?: unknown } | null)?.address ?? ''));

export async function sendEmail(settings: SmtpSettings, message: EmailMessage, ctx: Pick<ExecutorContext, 'signal' | 'timeoutMs'>): Promise<SentEmail> {
  const nodemailer = requireLazily('nodemailer') as typeof Nodemailer;
  const transport = nodemailer.createTransport(transportOptions(settings, ctx.timeoutMs));
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      transport.close();
      reject(Object.assign(new Error('The run was stopped before the message was sent.'), { code: 'aborted' }));
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const info = await Promise.race([
      transport.sendMail({ from: settings.from, to: message.to, ...(message.cc.length ? { cc: message.cc } : {}), subject: message.subject, text: message.text }),
      aborted,
    ]);
    return { messageId: String(info.messageId ?? ''), accepted: (info.accepted ?? []).map(addressText), rejected: (info.rejected ?? []).map(addressText) };
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {});
    transport.close();
  }
}

const SMTP_CODES: Record<string, string> = {
  ECONNECTION: 'smtp_unreachable',
  EDNS: 'smtp_unreachable',
  ESOCKET: 'smtp_unreachable',
  ETLS: 'smtp_tls_failed',
  EREQUIRETLS: 'smtp_tls_failed',
  EAUTH: 'smtp_auth_failed',
  ENOAUTH: 'smtp_auth_failed',
  EENVELOPE: 'smtp_rejected',
  EMESSAGE: 'smtp_rejected',
  ETIMEDOUT: 'smtp_timeout',
};

/** An SMTP failure as a run result (`smtp_unreachable`, `smtp_auth_failed`, `smtp_rejected`, …). */
export function smtpFailure(err: unknown, ctx: Pick<ExecutorContext, 'signal'>): ExecutorResult {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const reason = ctx.signal.reason as { name?: unknown } | undefined;
  if (ctx.signal.aborted && reason?.name === 'TimeoutError') {
    return { status: 'timed_out', output: {}, error: { code: 'timeout', message: 'The SMTP server did not take the message within the action timeout.' } };
  }
  if (code === 'aborted') return failed('aborted', 'The run was stopped before the message was sent.');
  // Nodemailer's messages quote the server's reply, never the password.
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  return failed(SMTP_CODES[code] ?? 'smtp_failed', message, { channel: 'email' });
}
