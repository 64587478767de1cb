/**
 * The `notification` executor: runs actions of type `notification` on the platform
 * (`executor: local`). Channel `email` sends through the admin's SMTP server
 * (nodemailer); channel `chat` posts a Slack- or Teams-compatible message through the
 * SSRF-guarded client. Sandbox runs never send email: they record what would be sent.
 */
import { defineExecutor, type ExecutorContext, type ExecutorResult } from '../../core/plugin-api/index.ts';
import { ConfigError } from '../_lib/config-error.ts';
import { failureOf } from '../_lib/failure-of.ts';
import { failed, hostOf, isSuccess, responseFailure } from '../_lib/http-result.ts';
import { templateVariables } from '../_lib/render-template.ts';
import { chatHttpRequest, CHAT_FORMATS, renderChat } from './chat-message.ts';
import { InvalidAddress, renderEmail } from './email-message.ts';
import { sendEmail, smtpFailure } from './send-email.ts';
import { SmtpNotConfigured, smtpSettingsOf } from './smtp-settings.ts';

async function runEmail(ctx: ExecutorContext): Promise<ExecutorResult> {
  const message = renderEmail(ctx.config, templateVariables(ctx));
  let settings;
  try {
    settings = smtpSettingsOf(ctx.settings);
  } catch (err) {
    if (!(err instanceof SmtpNotConfigured)) throw err;
    const plan = { executor: 'notification', channel: 'email', message: { from: null, ...message } };
    // A sandbox run sends nothing, so it needs no server; anything else cannot be carried out.
    if (ctx.sandboxMode) {
      return ctx.dryRun ? { status: 'completed', output: { dry_run: true }, plan } : { status: 'completed', output: { channel: 'email', sandbox: true, would_send: plan.message } };
    }
    return { ...failed(err.code, err.message, { channel: 'email' }), ...(ctx.dryRun ? { plan } : {}) };
  }
  const full = { from: settings.from, ...message };
  if (ctx.dryRun) {
    return { status: 'completed', output: { dry_run: true }, plan: { executor: 'notification', channel: 'email', smtp: { host: settings.host, port: settings.port }, message: full } };
  }
  if (ctx.sandboxMode) {
    ctx.log('INFO', 'sandbox run: the email was not sent');
    return { status: 'completed', output: { channel: 'email', sandbox: true, would_send: full } };
  }
  try {
    const sent = await sendEmail(settings, message, ctx);
    ctx.log('INFO', `email accepted by ${settings.host} for ${sent.accepted.length} of ${message.to.length + message.cc.length} recipients`);
    return { status: 'completed', output: { channel: 'email', message_id: sent.messageId, accepted: sent.accepted, rejected: sent.rejected } };
  } catch (err) {
    return smtpFailure(err, ctx);
  }
}

async function runChat(ctx: ExecutorContext): Promise<ExecutorResult> {
  const req = renderChat(ctx.config, templateVariables(ctx));
  if (ctx.dryRun) return { status: 'completed', output: { dry_run: true }, plan: { executor: 'notification', channel: 'chat', request: req } };
  const res = await ctx.http.request(chatHttpRequest(req, ctx));
  ctx.log('INFO', `chat message to ${hostOf(req.url)}: HTTP ${res.statusCode}`);
  if (!isSuccess(res)) return responseFailure(res, hostOf(req.url));
  return { status: 'completed', output: { channel: 'chat', status_code: res.statusCode } };
}

async function run(ctx: ExecutorContext): Promise<ExecutorResult> {
  try {
    if (ctx.config.channel === 'email') return await runEmail(ctx);
    if (ctx.config.channel === 'chat') return await runChat(ctx);
    throw new ConfigError('config.channel must be email or chat');
  } catch (err) {
    if (err instanceof InvalidAddress) return failed(err.code, err.message);
    return failureOf(err, ctx);
  }
}

export default defineExecutor({
  name: 'notification',
  version: '1.0.0',
  apiVersion: '^1.3.0',
  description: 'Sends notifications: email through the configured SMTP server, or a Slack/Teams-compatible chat message.',
  capabilities: ['net:outbound', 'secrets:read'],
  executorKind: 'notification',
  options: {
    smtp: {
      type: 'object',
      secret: true,
      description: '{host, port, secure, starttls, user, password, from, tls: {rejectUnauthorized, ca}}; a secret option as a whole because it holds the password.',
    },
  },
  configSchema: {
    channel: { type: 'string', required: true, enum: ['email', 'chat'] },
    to: { type: 'string[]', description: 'email: recipient address templates (one address each).' },
    cc: { type: 'string[]', description: 'email: copy recipient address templates.' },
    subject: { type: 'string', description: 'email: subject template (one line).' },
    body_template: { type: 'string', description: 'email: plain-text body template.' },
    url: { type: 'string', description: 'chat: incoming-webhook URL template (a single placeholder takes a stored URL whole).' },
    text_template: { type: 'string', description: 'chat: message text template.' },
    format: { type: 'string', enum: CHAT_FORMATS, default: 'slack' },
  },
  run,
});
