import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import { ROLES } from '../../core/domain/roles.ts';
import { loginSchema } from './auth-schemas.ts';

const tags = ['api', 'auth'];
const binding = Joi.string().pattern(/^[A-Za-z0-9_-]{43,128}$/).required().description('A random value (at least 32 bytes, base64url) the console keeps in its tab for this sign-in.');

/** Single sign-on with OpenID Connect (core/sso): providers, start, the provider's callback, the console's exchange. */
export function ssoRoutes(ctx: AppContext): ServerRoute[] {
  const sso = ctx.services.sso;
  return [
    {
      method: 'GET',
      path: '/api/user/auth/sso/providers',
      options: {
        auth: false,
        tags,
        description: 'The single sign-on providers the console offers',
        validate: { query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.array().items(Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).label('SsoProvider')), 'SsoProviderList') } },
      },
      handler: () => ({ data: sso.providers.list() }),
    },
    {
      method: 'POST',
      path: '/api/user/auth/sso/start',
      options: {
        auth: false,
        tags,
        description: 'Start a sign-in through a provider: answers the URL to send the browser to',
        notes: 'Authorization code flow with PKCE (S256), a random state and nonce. `binding` is hashed and kept with the sign-in; POST /api/user/auth/sso/exchange must present it, so the sign-in can only be completed in the browser that started it. Sign-ins expire after sso.loginTimeoutSeconds. docs/sso.md.',
        plugins: { rampart: { rateLimit: endpointLimit('sso-start', 30), errors: [404] } },
        validate: { payload: Joi.object({ provider: Joi.string().max(64).required(), binding }).label('SsoStart'), query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.object({ authorization_url: Joi.string().uri().required() }).label('SsoStarted'), 'SsoStartResponse') } },
      },
      handler: async (request) => {
        const { provider, binding: value } = request.payload as { provider: string; binding: string };
        return { data: await sso.start(provider, value) };
      },
    },
    {
      method: 'GET',
      path: '/api/user/auth/sso/callback',
      options: {
        auth: false,
        tags,
        description: 'Where the provider sends the browser back (the redirect URI registered at the provider)',
        notes: 'Always a 303 to the console: `/console#/sso?handoff=<one-time code>` when the provider\'s answer passed every check (state seen once, code exchanged with the PKCE verifier, ID token issuer, audience, signature through the provider\'s JWKS, expiry with sso.clockToleranceSeconds of skew, nonce) and the groups claim maps to a tenant and role; `/console#/sso?error=<code>` otherwise (sso_no_access, sso_invalid_token, sso_state_replayed, sso_expired, sso_provider_error…; the reason is logged). Nothing but the sign-in\'s own record is written here.',
        plugins: { rampart: { rateLimit: endpointLimit('sso-callback', 30) } },
        validate: { query: Joi.object().unknown(true) },
        response: { status: { 303: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        const target = await sso.callback(new URLSearchParams(request.url.search));
        return h.response().code(303).header('location', target).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      },
    },
    {
      method: 'POST',
      path: '/api/user/auth/sso/exchange',
      options: {
        auth: false,
        tags,
        description: 'Trade a sign-in\'s hand-off code and its binding for a login token',
        notes: `The user behind the provider's identity (issuer and subject) is made at their first sign-in and gets the role's scopes (${ROLES.join(', ')}: docs/sso.md#roles) at every sign-in; their tokens holding scopes the role no longer gives are revoked. The answer is the same as POST /api/user/auth/login's, plus the role. A hand-off is valid once, for a minute, with the binding given to /start: 401 sso_handoff_invalid otherwise.`,
        plugins: { rampart: { rateLimit: endpointLimit('sso-exchange', 30) } },
        validate: { payload: Joi.object({ handoff: Joi.string().pattern(/^[A-Za-z0-9_-]{43}$/).required(), binding }).label('SsoExchange'), query: Joi.object({}) },
        response: { status: { 200: dataOf(loginSchema.keys({ role: Joi.string().valid(...ROLES).required() }).label('SsoLoginResult'), 'SsoLoginResponse') } },
      },
      handler: async (request) => {
        const { handoff, binding: value } = request.payload as { handoff: string; binding: string };
        return { data: await sso.exchange(handoff, value) };
      },
    },
  ];
}
