import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../core/webhooks/delivery-status.ts';
import { fromIso } from '../../core/time.ts';
import { attemptView, deliveryView } from '../../core/webhooks/webhook-views.ts';
import { tags, webhookAuth } from './webhook-routes.ts';
import { deliveryDetailSchema, deliveryParams, deliverySchema, recoverPayload, webhookIdParams } from './webhook-schemas.ts';

export function deliveryRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.deliveries;
  return [
    {
      method: 'GET',
      path: '/api/webhooks/{id}/deliveries',
      options: {
        auth: webhookAuth,
        tags,
        description: "List a webhook's deliveries",
        notes: 'Newest first. `status` is `pending` (first attempt not made yet), `retried` (an attempt failed, another is scheduled at `next_attempt_at`), `delivered` or `failed` (all attempts failed). `response_code`, `duration_ms` and `timestamp` describe the last attempt.',
        validate: {
          params: webhookIdParams,
          query: Joi.object({ ...pageQuery, status: Joi.string().valid(...DELIVERY_STATUSES) }),
        },
        response: { status: { 200: listOf(deliverySchema, 'WebhookDeliveryList') } },
      },
      handler: async (request) => {
        const { page, per_page, status } = request.query as { page: number; per_page: number; status?: DeliveryStatus };
        const result = await service.list(callerOf(request).tenantId, String(request.params.id), { page, perPage: per_page }, status);
        return { data: result.rows.map(deliveryView), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/webhooks/{id}/deliveries/{delivery_id}',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Get a delivery with every attempt',
        notes: 'Each attempt records its response code, duration, error and the start of the response body.',
        validate: { params: deliveryParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(deliveryDetailSchema, 'WebhookDeliveryDetailResponse') } },
      },
      handler: async (request) => {
        const { delivery, attempts } = await service.get(callerOf(request).tenantId, String(request.params.id), String(request.params.delivery_id));
        return { data: { ...deliveryView(delivery), attempt_log: attempts.map(attemptView) } };
      },
    },
    {
      method: 'POST',
      path: '/api/webhooks/{id}/deliveries/{delivery_id}/retry',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Retry a failed delivery',
        notes: 'Only a `failed` delivery of an active webhook (409 otherwise). It starts a fresh round of attempts on the normal schedule, the first one at once; the answer shows it queued.',
        validate: { params: deliveryParams, query: Joi.object({}), payload: Joi.object({}).allow(null) },
        response: { status: { 200: dataOf(deliverySchema, 'WebhookDeliveryResponse') } },
      },
      handler: async (request) => ({
        data: deliveryView(await service.retry(callerOf(request).tenantId, String(request.params.id), String(request.params.delivery_id))),
      }),
    },
    {
      method: 'POST',
      path: '/api/webhooks/{id}/recover',
      options: {
        auth: webhookAuth,
        tags,
        description: 'Resend every failed delivery of a time range',
        notes: 'For after an outage: every `failed` delivery created in [since, until) starts a fresh round of attempts. Answers how many were queued.',
        validate: { params: webhookIdParams, payload: recoverPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.object({ requeued: Joi.number().integer().min(0).required() }).label('WebhookRecoverResult'), 'WebhookRecoverResponse') } },
      },
      handler: async (request) => {
        const body = request.payload as { since: string; until?: string };
        const n = await service.recover(callerOf(request).tenantId, String(request.params.id), fromIso(body.since)!, body.until ? fromIso(body.until) : null);
        return { data: { requeued: n } };
      },
    },
  ];
}
