import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import type { Scope } from '../../core/domain/scopes.ts';
import { createTokenPayload, issuedTokenSchema, tenantId, tokenId, tokenSchema } from './admin-schemas.ts';

const admin = { access: { scope: ['admin'] } };
const tags = ['api', 'admin'];

interface CreateTokenBody {
  name: string;
  scopes: Scope[];
  expires_at?: string;
  expires_in_seconds?: number;
  user_id?: string;
}

export function tokenRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.admin;
  return [
    {
      method: 'POST',
      path: '/api/admin/tenants/{tenant_id}/tokens',
      options: {
        auth: admin,
        tags,
        description: 'Issue an API token for a tenant',
        notes: 'The token value is in the response once and is never shown again; only its SHA-256 hash is stored.',
        validate: { params: Joi.object({ tenant_id: tenantId }), payload: createTokenPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(issuedTokenSchema, 'IssuedTokenResponse') } },
      },
      handler: async (request, h) => {
        const body = request.payload as CreateTokenBody;
        await service.getTenant(String(request.params.tenant_id));
        const expiresAt = body.expires_at
          ? Date.parse(body.expires_at)
          : body.expires_in_seconds
            ? Date.now() + body.expires_in_seconds * 1000
            : null;
        const issued = await service.createToken(String(request.params.tenant_id), {
          name: body.name,
          scopes: body.scopes,
          expiresAt,
          userId: body.user_id ?? null,
        });
        return h.response({ data: { ...issued.record, token: issued.token } }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/admin/tenants/{tenant_id}/tokens',
      options: {
        auth: admin,
        tags,
        description: "List a tenant's tokens (never their values)",
        validate: {
          params: Joi.object({ tenant_id: tenantId }),
          query: Joi.object({ ...pageQuery, include_revoked: Joi.boolean().default(false) }),
        },
        response: { status: { 200: listOf(tokenSchema, 'ApiTokenList') } },
        // An unknown tenant has no Last-Modified (null): the handler answers 404, never 304.
        plugins: { rampart: { lastModified: (request) => service.tokensChangedAt(String(request.params.tenant_id)) } },
      },
      handler: async (request) => {
        const { page, per_page, include_revoked } = request.query as { page: number; per_page: number; include_revoked: boolean };
        const result = await service.listTokens(String(request.params.tenant_id), { page, perPage: per_page }, include_revoked);
        return { data: result.rows, meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/tokens/{token_id}',
      options: {
        auth: admin,
        tags,
        description: 'Revoke a token',
        notes: 'Takes effect on the next request that presents it. Revoking twice is harmless.',
        validate: { params: Joi.object({ token_id: tokenId }), query: Joi.object({}) },
        response: { status: { 200: dataOf(tokenSchema, 'ApiTokenResponse') } },
      },
      handler: async (request) => ({ data: await service.revokeToken(String(request.params.token_id)) }),
    },
  ];
}
