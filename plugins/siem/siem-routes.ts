import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import type { SiemInput } from '../../core/siem/siem-service.ts';
import { createSiemPayload, siemIdParams, siemSchema, siemTestSchema, siemView, updateSiemPayload } from './siem-schemas.ts';

const auth = { access: { scope: ['integrations:manage'] } };
const tags = ['api', 'integrations'];
const BASE = '/api/integrations/siem';

export function siemRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.siem;
  const tenant = (request: { auth: unknown }) => callerOf(request as never).tenantId;
  const one = (request: Parameters<typeof callerOf>[0]) => service.get(tenant(request), String(request.params.id));
  return [
    {
      method: 'POST',
      path: BASE,
      options: {
        auth,
        tags,
        description: 'Create a SIEM integration (syslog forwarding)',
        notes: [
          'Forwards the listed event kinds of this tenant, from creation on, to a syslog collector: CEF in an RFC 5424 header (`format: cef`) or RFC 5424 with structured data (`format: rfc5424`), RFC 5425 octet-counted frames over TLS by default.',
          'Private, loopback and link-local collector addresses must be allow-listed by the admin (`outbound.allowPrivateCidrs`), as for webhooks.',
          'The TLS client key is write-only (encrypted at rest); the response says only whether CA, client certificate and key are configured.',
        ],
        validate: { payload: createSiemPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(siemSchema, 'SiemIntegrationResponse') } },
      },
      handler: async (request, h) => h.response({ data: siemView(await service.create(tenant(request), request.payload as SiemInput)) }).code(201),
    },
    {
      method: 'GET',
      path: BASE,
      options: {
        auth,
        tags,
        description: 'List SIEM integrations',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => service.listChangedAt(tenantId)) } },
        validate: { query: Joi.object(pageQuery) },
        response: { status: { 200: listOf(siemSchema, 'SiemIntegrationList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.list(tenant(request), { page, perPage: per_page });
        return { data: result.rows.map(siemView), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{id}`,
      options: {
        auth,
        tags,
        description: 'Get a SIEM integration',
        notes: '`status` shows the last successful write and the last error (cleared once the collector accepts again).',
        plugins: {
          rampart: {
            lastModified: recordLastModified(async (request) => {
              const record = await one(request).catch(() => null);
              return record ? siemView(record) : null;
            }),
          },
        },
        validate: { params: siemIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(siemSchema, 'SiemIntegrationResponse') } },
      },
      handler: async (request) => ({ data: siemView(await one(request)) }),
    },
    {
      method: 'PUT',
      path: `${BASE}/{id}`,
      options: {
        auth,
        tags,
        description: 'Update a SIEM integration',
        notes: 'Any creation field. `tls` keys given replace the stored ones (`null` clears one); keys left out are kept. The cursor is kept: a paused integration sends what it missed when re-activated (within event retention).',
        validate: { params: siemIdParams, payload: updateSiemPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(siemSchema, 'SiemIntegrationResponse') } },
      },
      handler: async (request) => ({ data: siemView(await service.update(tenant(request), String(request.params.id), request.payload as Partial<SiemInput>)) }),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{id}`,
      options: {
        auth,
        tags,
        description: 'Delete a SIEM integration',
        notes: 'Answers the deleted integration. Events not yet forwarded are dropped.',
        validate: { params: siemIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(siemSchema, 'SiemIntegrationResponse') } },
      },
      handler: async (request) => ({ data: siemView(await service.delete(tenant(request), String(request.params.id))) }),
    },
    {
      method: 'POST',
      path: `${BASE}/{id}/test`,
      options: {
        auth,
        tags,
        description: 'Send a test message to the collector',
        notes: 'Sends one sample `system.alert` (alert_type `siem.test`) on a separate connection and answers 200 with `delivered` true or false and the error; the sample is not stored and reaches no other channel.',
        validate: { params: siemIdParams, query: Joi.object({}), payload: Joi.object({}).allow(null).label('Empty') },
        response: { status: { 200: dataOf(siemTestSchema, 'SiemTestResponse') } },
      },
      handler: async (request) => ({ data: await ctx.services.siem.sendTest(await one(request)) }),
    },
  ];
}
