import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import type { Scope } from '../../core/domain/scopes.ts';
import { createUserPayload, tenantId, userId, userSchema } from './admin-schemas.ts';

const admin = { access: { scope: ['admin'] } };
const tags = ['api', 'admin'];

export function userRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.admin;
  return [
    {
      method: 'POST',
      path: '/api/admin/tenants/{tenant_id}/users',
      options: {
        auth: admin,
        tags,
        description: 'Create a user in a tenant',
        notes: 'Emails are unique across the platform (they are the login name). The password is stored as an scrypt hash.',
        validate: { params: Joi.object({ tenant_id: tenantId }), payload: createUserPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(userSchema, 'UserResponse') } },
      },
      handler: async (request, h) => {
        const body = request.payload as { email: string; name: string; password: string; scopes: Scope[] };
        return h.response({ data: await service.createUser(String(request.params.tenant_id), body) }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/admin/tenants/{tenant_id}/users',
      options: {
        auth: admin,
        tags,
        description: "List a tenant's users",
        validate: { params: Joi.object({ tenant_id: tenantId }), query: Joi.object(pageQuery) },
        // An unknown tenant has no Last-Modified (null): the handler answers 404, never 304.
        plugins: { rampart: { lastModified: (request) => service.usersChangedAt(String(request.params.tenant_id)) } },
        response: { status: { 200: listOf(userSchema, 'UserList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.listUsers(String(request.params.tenant_id), { page, perPage: per_page });
        return { data: result.rows, meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/users/{user_id}',
      options: {
        auth: admin,
        tags,
        description: 'Delete a user and revoke its tokens',
        validate: { params: Joi.object({ user_id: userId }), query: Joi.object({}) },
        response: { status: { 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        await service.deleteUser(String(request.params.user_id));
        return h.response().code(204);
      },
    },
  ];
}
