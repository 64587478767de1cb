import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import type { Scope } from '../../core/domain/scopes.ts';
import { issuedTokenSchema, scopeList, tokenId, tokenSchema } from '../admin/admin-schemas.ts';

const tags = ['api', 'auth'];
const tokenName = Joi.string().trim().min(1).max(120).pattern(/^[^\p{Cc}\u2028\u2029]+$/u).messages({ 'string.pattern.base': '{#label} must not contain control characters or line breaks' });

/** A signed-in user's own API tokens, within the scopes of their sign-in (their role, for single sign-on). */
export function personalTokenRoutes(ctx: AppContext): ServerRoute[] {
  const tokens = ctx.services.personalTokens;
  const maxDays = ctx.config.sso.personalTokenMaxDays;
  return [
    {
      method: 'GET',
      path: '/api/user/tokens',
      options: {
        tags,
        description: 'Your own API tokens (not revoked), newest first, at most 100',
        notes: 'Empty for a token without a user.',
        validate: { query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.array().items(tokenSchema), 'PersonalTokenList') } },
      },
      handler: async (request) => ({ data: await tokens.list(callerOf(request)) }),
    },
    {
      method: 'POST',
      path: '/api/user/tokens',
      options: {
        tags,
        description: 'Make yourself an API token',
        notes: `Only from a signed-in session (a login token from password sign-in or single sign-on; 403 sign_in_required with an API token, so a leaked token cannot make more). The scopes must be ones the session holds (403 insufficient_scope naming the others). expires_at is required, at most ${maxDays} days ahead (sso.personalTokenMaxDays): a user removed at the identity provider keeps tokens until Rampart sees their next sign-in, and the expiry bounds that. A demotion at a later sign-in revokes tokens beyond the new role. The token is shown once.`,
        plugins: { rampart: { errors: [403] } },
        validate: { query: Joi.object({}), payload: Joi.object({ name: tokenName.required(), scopes: scopeList.required(), expires_at: Joi.string().isoDate().required() }).label('CreatePersonalToken') },
        response: { status: { 201: dataOf(issuedTokenSchema, 'PersonalTokenResponse') } },
      },
      handler: async (request, h) => {
        const p = request.payload as { name: string; scopes: Scope[]; expires_at: string };
        const issued = await tokens.create(callerOf(request), { name: p.name, scopes: p.scopes, expiresAt: Date.parse(p.expires_at) });
        return h.response({ data: { ...issued.record, token: issued.token } }).code(201);
      },
    },
    {
      method: 'DELETE',
      path: '/api/user/tokens/{id}',
      options: {
        tags,
        description: 'Revoke one of your own API tokens',
        notes: 'Another user\'s token, a login token or an unknown id is a 404.',
        validate: { params: Joi.object({ id: tokenId }), query: Joi.object({}) },
        response: { status: { 200: dataOf(tokenSchema, 'RevokedPersonalTokenResponse') } },
      },
      handler: async (request) => ({ data: await tokens.revoke(callerOf(request), String(request.params.id)) }),
    },
  ];
}
