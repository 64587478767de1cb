import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { tenantId } from '../admin/admin-schemas.ts';

const admin = { access: { scope: ['admin'] } };
const tags = ['api', 'admin'];
const settingsSchema = Joi.object({
  tenant_id: Joi.string().required(),
  password_login: Joi.boolean().required().description('Whether the tenant\'s users may sign in with email and password.'),
  revoked_sessions: Joi.number().integer().min(0).description('Password sessions (login tokens) ended by this change.'),
}).label('SignInSettings');

/** A tenant's sign-in switches (platform administrators: scope admin). */
export function signInSettingsRoutes(ctx: AppContext): ServerRoute[] {
  const settings = ctx.services.signInSettings;
  return [
    {
      method: 'GET',
      path: '/api/admin/tenants/{id}/sign-in',
      options: {
        auth: admin,
        tags,
        description: 'How a tenant\'s users may sign in',
        validate: { params: Joi.object({ id: tenantId }), query: Joi.object({}) },
        response: { status: { 200: dataOf(settingsSchema, 'SignInSettingsResponse') } },
      },
      handler: async (request) => ({ data: await settings.get(String(request.params.id)) }),
    },
    {
      method: 'PUT',
      path: '/api/admin/tenants/{id}/sign-in',
      options: {
        auth: admin,
        tags,
        description: 'Turn password sign-in on or off for a tenant',
        notes: 'Off: POST /api/user/auth/login answers the tenant\'s users 403 password_login_disabled (after checking the password), and their password sessions in progress end (login tokens revoked, counted in revoked_sessions). Single sign-on and API tokens are untouched. Keep a way in: an admin token, or a provider whose mapping gives tenant_admin.',
        validate: { params: Joi.object({ id: tenantId }), query: Joi.object({}), payload: Joi.object({ password_login: Joi.boolean().required() }).label('UpdateSignInSettings') },
        response: { status: { 200: dataOf(settingsSchema, 'UpdatedSignInSettingsResponse') } },
      },
      handler: async (request) => ({ data: await settings.set(String(request.params.id), (request.payload as { password_login: boolean }).password_login) }),
    },
  ];
}
