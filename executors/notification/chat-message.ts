/**
 * A chat notification (`{channel: 'chat', url, text_template, format?}`): one POST of a
 * Slack-compatible `{"text": …}` body, or a Teams MessageCard, through `ctx.http`.
 */
import type { ExecutorContext, ExecutorHttpRequest } from '../../core/plugin-api/index.ts';
import { ConfigError } from '../_lib/config-error.ts';
import { MAX_RESPONSE_BYTES } from '../_lib/http-result.ts';
import { renderTemplate, type TemplateVariables } from '../_lib/render-template.ts';

export const CHAT_FORMATS = ['slack', 'teams'] as const;

export interface ChatRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export function renderChat(config: Readonly<Record<string, unknown>>, vars: TemplateVariables): ChatRequest {
  if (typeof config.url !== 'string' || config.url === '') throw new ConfigError('a chat notification needs config.url');
  if (typeof config.text_template !== 'string') throw new ConfigError('a chat notification needs config.text_template');
  const format = config.format ?? 'slack';
  if (!(CHAT_FORMATS as readonly unknown[]).includes(format)) throw new ConfigError(`config.format must be one of ${CHAT_FORMATS.join(', ')}`);
  const url = renderTemplate(config.url, vars, 'url');
  const text = renderTemplate(config.text_template, vars, 'text');
  // The text is serialised with JSON.stringify below, so no value can break the body.
  const body = format === 'teams' ? { '@type': 'MessageCard', '@context': 'http://schema.org/extensions', text } : { text };
  return { url, method: 'POST', headers: { 'content-type': 'application/json' }, body };
}

export function chatHttpRequest(req: ChatRequest, ctx: Pick<ExecutorContext, 'signal' | 'timeoutMs'>): ExecutorHttpRequest {
  return { url: req.url, method: 'POST', headers: req.headers, body: JSON.stringify(req.body), timeoutMs: ctx.timeoutMs, signal: ctx.signal, maxResponseBytes: MAX_RESPONSE_BYTES };
}
