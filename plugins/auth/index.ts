import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import { loginSchema } from './auth-schemas.ts';
import { personalTokenRoutes } from './personal-token-routes.ts';
import { signInSettingsRoutes } from './sign-in-settings-routes.ts';
import { ssoRoutes } from './sso-routes.ts';

const tags = ['api', 'auth'];
const iso = Joi.string().isoDate();

const loginPayload = Joi.object({
  email: Joi.string().email({ tlds: false }).max(254).required(),
  password: Joi.string().min(1).max(1024).required(),
}).label('Login');

const meSchema = Joi.object({
  tenant: Joi.object({ id: Joi.string().required(), name: Joi.string().required(), tier: Joi.string().required() }).required(),
  token: Joi.object({
    id: Joi.string().required(),
    name: Joi.string().required(),
    kind: Joi.string().required(),
    scopes: Joi.array().items(Joi.string()).required(),
    expires_at: iso.allow(null).required(),
  }).required(),
  user_id: Joi.string().allow(null).required(),
}).label('WhoAmI');

/** Login (email + password, or single sign-on) to a short-lived token, who-am-I, logout, personal tokens, tenants' sign-in switches. */
export const authPlugin: Plugin<AppContext> = {
  name: 'rampart-auth',
  register(server, ctx) {
    server.route([
      {
        method: 'POST',
        path: '/api/user/auth/login',
        options: {
          auth: false,
          tags,
          description: 'Log in with email and password',
          notes: `Returns a bearer token carrying the user's scopes, valid for ${ctx.config.auth.loginTokenTtlSeconds} seconds. Wrong email and wrong password give the same 401 invalid_credentials (so do single sign-on users, who have no password). The right password of a tenant whose password sign-in is turned off is a 403 password_login_disabled.`,
          // 10 per minute per client address and account (the email), and 20 per minute per client
          // address across all emails ("login-address"), on top of the client-address budget.
          plugins: { rampart: { rateLimit: endpointLimit('login', 10, { accountField: 'email', perAddress: 20 }), errors: [403, 503] } },
          validate: { payload: loginPayload, query: Joi.object({}) },
          response: { status: { 200: dataOf(loginSchema, 'LoginResponse') } },
        },
        handler: async (request) => {
          const { email, password } = request.payload as { email: string; password: string };
          return { data: await ctx.services.auth.login(email, password) };
        },
      },
      {
        method: 'GET',
        path: '/api/user/me',
        options: {
          tags,
          description: 'Who am I: the tenant, token and scopes behind this request',
          validate: { query: Joi.object({}) },
          response: { status: { 200: dataOf(meSchema, 'WhoAmIResponse') } },
        },
        handler: async (request) => ({ data: await ctx.services.auth.whoAmI(callerOf(request)) }),
      },
      {
        method: 'POST',
        path: '/api/user/auth/logout',
        options: {
          tags,
          description: 'Revoke the token used for this request',
          validate: { query: Joi.object({}), payload: Joi.object({}).allow(null) },
          response: { status: { 204: Joi.any().empty() } },
        },
        handler: async (request, h) => {
          await ctx.services.auth.logout(callerOf(request).tokenId);
          return h.response().code(204);
        },
      },
      ...ssoRoutes(ctx),
      ...personalTokenRoutes(ctx),
      ...signInSettingsRoutes(ctx),
    ]);
  },
};
