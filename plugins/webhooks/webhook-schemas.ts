import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { WEBHOOK_EVENT_KINDS } from '../../core/domain/event-kinds.ts';
import { TRANSFORMS } from '../../core/webhooks/webhook-payload.ts';
import { headerValueProblem } from '../../core/webhooks/header-value.ts';
import { SEVERITIES } from '../../core/domain/severity.ts';

const iso = Joi.string().isoDate();
const CATEGORIES = [...new Set(WEBHOOK_EVENT_KINDS.map((k) => k.split('.')[0]!))];

export const webhookIdParams = Joi.object({
  id: recordId('whk', 'a webhook id').required(),
});

export const deliveryParams = webhookIdParams.keys({
  delivery_id: recordId('dlv', 'a delivery id').required(),
});

/** An event kind of the webhook list, `*`, or `<category>.*` (e.g. `finding.*`). */
const kindPattern = Joi.string().valid(...WEBHOOK_EVENT_KINDS, '*', ...CATEGORIES.map((c) => `${c}.*`));

// Headers that carry the delivery's own framing, identity or signatures cannot be overridden.
function reservedHeaders(signatureHeader: string): string[] {
  const sig = signatureHeader.toLowerCase();
  return ['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect',
    'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature', sig, `${sig}-previous`];
}

// A value must be HTTP header text (visible ASCII; core/webhooks/header-value.ts says why): refused here with the header's name.
const headerValue = Joi.string()
  .max(4096)
  .custom((value: string, helpers) => {
    const problem = headerValueProblem(value);
    return problem ? helpers.message({ custom: '{#label} {#problem}' }, { problem }) : value;
  });

function headersSchema(signatureHeader: string): Joi.ObjectSchema {
  const reserved = reservedHeaders(signatureHeader);
  return Joi.object()
    .pattern(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, headerValue)
    .max(20)
    .custom((value: Record<string, string>, helpers) => {
      const bad = Object.keys(value).find((k) => reserved.includes(k.toLowerCase()));
      return bad ? helpers.message({ custom: `headers.${bad} is set by Rampart and cannot be overridden` }) : value;
    })
    .description('Custom headers sent with every delivery (e.g. an Authorization header for a collector). Values must be HTTP header text: visible ASCII characters, with spaces and tabs only between them (no line breaks, control characters or non-ASCII such as `…`). Values are write-only: stored encrypted, only their names are returned.');
}

const filtersSchema = Joi.object({
  min_severity: Joi.string().valid(...SEVERITIES).description('Skip events whose `severity` is below this; events without a severity pass.'),
  asset_tags: Joi.array().items(Joi.string().trim().min(1).max(64)).max(50).unique().description('Only events about an asset carrying one of these tags; events without an asset are skipped.'),
  exclude: Joi.array().items(kindPattern).max(50).unique().description('Event kinds (or `<category>.*`) removed from what `events` selects.'),
}).label('WebhookFilters');

const transformOptions = Joi.object({
  index: Joi.string().max(200),
  source: Joi.string().max(200),
  sourcetype: Joi.string().max(200),
}).label('WebhookTransformOptions');

const secret = Joi.string().min(16).max(256).pattern(/^[\x21-\x7e]+$/).description('HMAC-SHA256 signing secret, 16-256 printable characters (a `whsec_<base64>` secret is used as Standard Webhooks expects). Write-only.');

export function webhookPayloads(signatureHeader: string) {
  const fields = {
    name: Joi.string().trim().min(1).max(200).pattern(/^[^\x00-\x1f]+$/),
    url: Joi.string().trim().max(2048).description('HTTPS endpoint; private, loopback and link-local destinations are refused unless allow-listed by the operator.'),
    events: Joi.array().items(kindPattern).min(1).max(50).unique(),
    secret: secret.allow(null),
    headers: headersSchema(signatureHeader),
    active: Joi.boolean(),
    transform: Joi.string().valid(...TRANSFORMS).allow(null),
    transform_options: transformOptions,
    filters: filtersSchema,
  };
  return {
    create: Joi.object({ ...fields, name: fields.name.required(), url: fields.url.required(), events: fields.events.required(), secret }).label('CreateWebhook'),
    update: Joi.object(fields).min(1).label('UpdateWebhook'),
  };
}

export const rotateSecretPayload = Joi.object({
  secret,
  grace_period_seconds: Joi.number().integer().min(0).max(30 * 24 * 3600).default(86400).description('How long the old secret keeps signing too (default one day).'),
})
  .fork(['secret'], (s) => s.required())
  .label('RotateWebhookSecret');

export const recoverPayload = Joi.object({
  since: iso.required().description('Resend failed deliveries created at or after this time.'),
  until: iso.description('… and before this time (default: now).'),
}).label('RecoverWebhookDeliveries');

export const webhookSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  url: Joi.string().required(),
  events: Joi.array().items(Joi.string()).required(),
  active: Joi.boolean().required(),
  transform: Joi.string().allow(null).required(),
  transform_options: transformOptions.required(),
  filters: filtersSchema.required(),
  header_names: Joi.array().items(Joi.string()).required(),
  has_secret: Joi.boolean().required(),
  secret_rotation_ends_at: iso.allow(null).required(),
  disabled_reason: Joi.string().allow(null).required().description('`manual`, or `failing` when Rampart disabled a failing endpoint.'),
  disabled_at: iso.allow(null).required(),
  failing_since: iso.allow(null).required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('Webhook');

export const deliverySchema = Joi.object({
  id: Joi.string().required(),
  event: Joi.string().required(),
  event_id: Joi.string().required(),
  status: Joi.string().valid('pending', 'retried', 'delivered', 'failed').required(),
  response_code: Joi.number().integer().allow(null).required(),
  duration_ms: Joi.number().integer().allow(null).required(),
  timestamp: iso.required(),
  attempts: Joi.number().integer().min(0).required(),
  next_attempt_at: iso.allow(null).required(),
  last_error: Joi.string().allow(null).required(),
  delivered_at: iso.allow(null).required(),
  created_at: iso.required(),
}).label('WebhookDelivery');

export const attemptSchema = Joi.object({
  attempt: Joi.number().integer().min(1).required(),
  outcome: Joi.string().valid('success', 'failure').required(),
  response_code: Joi.number().integer().allow(null).required(),
  duration_ms: Joi.number().integer().min(0).required(),
  error_code: Joi.string().allow(null).required(),
  error: Joi.string().allow(null).required(),
  response_body: Joi.string().allow('', null).required().description('The start of the response body (truncated).'),
  timestamp: iso.required(),
}).label('WebhookAttempt');

export const deliveryDetailSchema = deliverySchema.keys({ attempt_log: Joi.array().items(attemptSchema).required() }).label('WebhookDeliveryDetail');
