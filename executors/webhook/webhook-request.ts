/**
 * The request a webhook action sends, rendered from its config: `url` (url context),
 * `headers` (text, no CR/LF/NUL), `body_template` (JSON context when the content type is
 * JSON or unset, else text).
 */
import type { ExecutorContext, ExecutorHttpRequest, ExecutorResult, HttpResponse } from '../../core/plugin-api/index.ts';
import { ConfigError } from '../_lib/config-error.ts';
import { boundedText, hostOf, isSuccess, MAX_RESPONSE_BYTES, OUTPUT_TEXT_BYTES, parseJsonBody, responseFailure } from '../_lib/http-result.ts';
import { renderHeaderValue, renderTemplate, templateVariables } from '../_lib/render-template.ts';

export const WEBHOOK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Framing and routing belong to the client: a template must not be able to set them.
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization', 'proxy-connection']);

export interface WebhookRequest {
  url: string;
  method: WebhookMethod;
  headers: Record<string, string>;
  /** The rendered body as sent, or null when the request has none. */
  body: string | null;
  /** Whether the body was rendered as JSON (the dry-run plan then shows it as a value). */
  json: boolean;
}

function methodOf(value: unknown): WebhookMethod {
  const method = value === undefined || value === null ? 'POST' : String(value).toUpperCase();
  if (!(WEBHOOK_METHODS as readonly string[]).includes(method)) throw new ConfigError(`method must be one of ${WEBHOOK_METHODS.join(', ')}`);
  return method as WebhookMethod;
}

function headerTemplates(value: unknown): Array<[string, string]> {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError('headers must be an object of header name to value template');
  return Object.entries(value as Record<string, unknown>).map(([name, template]) => {
    if (!TOKEN.test(name)) throw new ConfigError(`header name ${JSON.stringify(name.slice(0, 64))} is not a valid HTTP header name`);
    if (RESERVED.has(name.toLowerCase())) throw new ConfigError(`header ${name} is set by the platform client and cannot be configured`);
    if (typeof template !== 'string' && typeof template !== 'number' && typeof template !== 'boolean') throw new ConfigError(`header ${name} must be a string`);
    return [name, String(template)];
  });
}

const isJsonType = (contentType: string | undefined): boolean => contentType === undefined || /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(contentType.trim());

/**
 * How a body template is rendered for its content type: each kind escapes values its own
 * way, so a parameter cannot add a form field or an XML element. Plain insertion only for
 * text/plain; any other type is refused rather than filled raw.
 */
function bodyContext(contentType: string): 'form' | 'xml' | 'text' | null {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/xml' || type === 'text/xml' || /^application\/[\w.+-]+\+xml$/.test(type)) return 'xml';
  if (type === 'text/plain') return 'text';
  return null;
}

/** Renders the request; throws TemplateError or ConfigError. */
export function buildWebhookRequest(ctx: ExecutorContext): WebhookRequest {
  const vars = templateVariables(ctx);
  if (typeof ctx.config.url !== 'string' || ctx.config.url === '') throw new ConfigError('the webhook executor needs config.url');
  const url = renderTemplate(ctx.config.url, vars, 'url');
  const method = methodOf(ctx.config.method);
  const headers: Record<string, string> = {};
  for (const [name, template] of headerTemplates(ctx.config.headers)) headers[name] = renderHeaderValue(name, template, vars);
  const template = ctx.config.body_template;
  if (template === undefined || template === null) return { url, method, headers, body: null, json: false };
  if (typeof template !== 'string') throw new ConfigError('body_template must be a string');
  if (method === 'GET' || method === 'HEAD') throw new ConfigError(`a ${method} request carries no body: remove body_template or use POST`);
  const typeName = Object.keys(headers).find((h) => h.toLowerCase() === 'content-type');
  if (isJsonType(typeName ? headers[typeName] : undefined)) {
    const body = renderTemplate(template, vars, 'json');
    if (!typeName) headers['content-type'] = 'application/json';
    return { url, method, headers, body, json: true };
  }
  const context = bodyContext(headers[typeName!]!);
  if (!context) throw new ConfigError('body_template is rendered for JSON, application/x-www-form-urlencoded, XML or text/plain bodies; set one of these as Content-Type');
  return { url, method, headers, body: renderTemplate(template, vars, context), json: false };
}

/** What a dry run shows: a JSON body as its value (so the engine can mask secrets in it), text as is. */
export function planOf(req: WebhookRequest): Record<string, unknown> {
  const body = req.body !== null && req.json ? (JSON.parse(req.body) as unknown) : req.body;
  return { executor: 'webhook', request: { url: req.url, method: req.method, headers: { ...req.headers }, body } };
}

export function toHttpRequest(req: WebhookRequest, ctx: ExecutorContext): ExecutorHttpRequest {
  return {
    url: req.url,
    method: req.method,
    headers: req.headers,
    ...(req.body === null ? {} : { body: req.body }),
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  };
}

/** 2xx: `{status_code, body}` with the body parsed when JSON, else bounded text (null when empty). */
export function webhookResult(res: HttpResponse, url: string): ExecutorResult {
  if (!isSuccess(res)) return responseFailure(res, hostOf(url));
  const parsed = res.truncated ? undefined : parseJsonBody(res.body);
  if (parsed) return { status: 'completed', output: { status_code: res.statusCode, body: parsed.value } };
  if (res.body === '') return { status: 'completed', output: { status_code: res.statusCode, body: null } };
  const text = boundedText(res.body, OUTPUT_TEXT_BYTES);
  const cut = text.cut || res.truncated;
  return { status: 'completed', output: { status_code: res.statusCode, body: text.text, ...(cut ? { body_truncated: true } : {}) } };
}
