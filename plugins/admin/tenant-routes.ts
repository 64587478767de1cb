import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { createTenantPayload, tenantId, tenantSchema, updateTenantPayload } from './admin-schemas.ts';

const admin = { access: { scope: ['admin'] } };
const tags = ['api', 'admin'];

export function tenantRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.admin;
  return [
    {
      method: 'POST',
      path: '/api/admin/tenants',
      options: {
        auth: admin,
        tags,
        description: 'Create a tenant',
        validate: { payload: createTenantPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(tenantSchema, 'TenantResponse') } },
      },
      handler: async (request, h) => h.response({ data: await service.createTenant(request.payload as { name: string; tier: 'standard' }) }).code(201),
    },
    {
      method: 'GET',
      path: '/api/admin/tenants',
      options: {
        auth: admin,
        tags,
        description: 'List tenants',
        notes: 'Sends Last-Modified (the latest change to any tenant); If-Modified-Since on an unchanged list answers 304 and costs no rate-limit token.',
        plugins: { rampart: { lastModified: async () => (await service.tenantsChangedAt()) ?? 0 } },
        validate: { query: Joi.object(pageQuery) },
        response: { status: { 200: listOf(tenantSchema, 'TenantList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.listTenants({ page, perPage: per_page });
        return { data: result.rows, meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/admin/tenants/{tenant_id}',
      options: {
        auth: admin,
        tags,
        description: 'Get a tenant',
        notes: "Sends Last-Modified (the tenant's updated_at); If-Modified-Since on an unchanged tenant answers 304 and costs no rate-limit token.",
        plugins: { rampart: { lastModified: (request) => service.tenantUpdatedAt(String(request.params.tenant_id)) } },
        validate: { params: Joi.object({ tenant_id: tenantId }), query: Joi.object({}) },
        response: { status: { 200: dataOf(tenantSchema, 'TenantResponse') } },
      },
      handler: async (request) => ({ data: await service.getTenant(String(request.params.tenant_id)) }),
    },
    {
      method: 'PATCH',
      path: '/api/admin/tenants/{tenant_id}',
      options: {
        auth: admin,
        tags,
        description: 'Rename a tenant or change its rate-limit tier',
        validate: { params: Joi.object({ tenant_id: tenantId }), payload: updateTenantPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(tenantSchema, 'TenantResponse') } },
      },
      handler: async (request) => ({ data: await service.updateTenant(String(request.params.tenant_id), request.payload as { name?: string }) }),
    },
  ];
}
