import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import type { WebhookInput } from '../../core/webhooks/webhook-service.ts';
import { attemptView, deliveryView, webhookView } from '../../core/webhooks/webhook-views.ts';
import { deliveryDetailSchema, rotateSecretPayload, webhookIdParams, webhookPayloads, webhookSchema } from './webhook-schemas.ts';

export const webhookAuth = { access: { scope: ['webhooks:manage'] } };
export const tags = ['api', 'webhooks'];

export function webhookRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.webhooks;
  const payloads = webhookPayloads(ctx.config.webhooks.signatureHeader);
  return [
    {
      method: 'POST',
      path: '/api/webhooks',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Create a webhook',
        notes: 'The URL must be HTTPS and must not resolve to a private, loopback or link-local address (checked now and again on every connection). `events` takes event kinds, `*` or `<category>.*`. `secret` and header values are write-only and stored encrypted. Answers the webhook (a superset of the spec\'s create fields).',
        validate: { payload: payloads.create, query: Joi.object({}) },
        response: { status: { 201: dataOf(webhookSchema, 'WebhookResponse') } },
      },
      handler: async (request, h) => {
        const hook = await service.create(callerOf(request).tenantId, request.payload as WebhookInput);
        return h.response({ data: webhookView(hook) }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/webhooks',
      options: {
        auth: webhookAuth,
        tags,
        description: 'List webhooks',
        notes: 'Newest first. Each item is the full webhook view (never the secret or header values).',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => service.listChangedAt(tenantId)) } },
        validate: { query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(webhookSchema, 'WebhookList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.list(callerOf(request).tenantId, { page, perPage: per_page });
        return { data: result.rows.map((w) => webhookView(w)), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/webhooks/{id}',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Get a webhook',
        plugins: {
          rampart: {
            lastModified: recordLastModified(async (request) => {
              const hook = await service.get(callerOf(request).tenantId, String(request.params.id)).catch(() => null);
              return hook ? webhookView(hook) : null;
            }),
          },
        },
        validate: { params: webhookIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(webhookSchema, 'WebhookResponse') } },
      },
      handler: async (request) => ({ data: webhookView(await service.get(callerOf(request).tenantId, String(request.params.id))) }),
    },
    {
      method: 'PUT',
      path: '/api/webhooks/{id}',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Update a webhook',
        notes: 'Any creation field; omitted fields are unchanged. `headers` replaces the whole set. `secret: null` removes the secret (deliveries are then unsigned); a new `secret` replaces the old one at once (use rotate-secret for a grace period). `active: true` re-enables an auto-disabled webhook; its waiting deliveries then go out.',
        validate: { params: webhookIdParams, payload: payloads.update, query: Joi.object({}) },
        response: { status: { 200: dataOf(webhookSchema, 'WebhookResponse') } },
      },
      handler: async (request) => ({
        data: webhookView(await service.update(callerOf(request).tenantId, String(request.params.id), request.payload as Partial<WebhookInput>)),
      }),
    },
    {
      method: 'DELETE',
      path: '/api/webhooks/{id}',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Delete a webhook',
        notes: 'Deletes the webhook with its delivery history; pending deliveries are dropped. Answers the deleted webhook.',
        validate: { params: webhookIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(webhookSchema, 'WebhookResponse') } },
      },
      handler: async (request) => ({ data: webhookView(await service.delete(callerOf(request).tenantId, String(request.params.id))) }),
    },
    {
      method: 'POST',
      path: '/api/webhooks/{id}/rotate-secret',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Rotate the signing secret with a grace period',
        notes: 'The new secret signs from now on; the old one also signs every delivery until `grace_period_seconds` have passed (Standard Webhooks: both in `webhook-signature`; the hex header keeps the new signature and `<header>-Previous` carries the old one).',
        validate: { params: webhookIdParams, payload: rotateSecretPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(webhookSchema, 'WebhookResponse') } },
      },
      handler: async (request) => {
        const body = request.payload as { secret: string; grace_period_seconds: number };
        return { data: webhookView(await service.rotateSecret(callerOf(request).tenantId, String(request.params.id), body.secret, body.grace_period_seconds)) };
      },
    },
    {
      method: 'POST',
      path: '/api/webhooks/{id}/test',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Send a webhook.test event now',
        notes: 'Sends one `webhook.test` event (sample data shaped like finding.new) to this webhook only, once, without retries, also when the webhook is inactive, and answers 200 with the delivery and its attempt, whatever the endpoint answered. The endpoint should answer 2xx.',
        validate: { params: webhookIdParams, query: Joi.object({}), payload: Joi.object({}).allow(null) },
        response: { status: { 200: dataOf(deliveryDetailSchema, 'WebhookTestResult') } },
      },
      handler: async (request) => {
        const tenantId = callerOf(request).tenantId;
        const webhookId = String(request.params.id);
        const delivery = await ctx.services.deliveries.sendTest(tenantId, webhookId);
        const { attempts } = await ctx.services.deliveries.get(tenantId, webhookId, delivery.id);
        return { data: { ...deliveryView(delivery), attempt_log: attempts.map(attemptView) } };
      },
    },
  ];
}
