import Joi from 'joi';
import { ROLES, type UserRole } from '../core/domain/roles.ts';

/** One claim value (a group) and the tenant and role it gives. */
export interface SsoMapping {
  value: string;
  /** A tenant id (ten_…) or name. */
  tenant: string;
  role: UserRole;
}

/** An OpenID Connect provider the console signs in through. */
export interface SsoProviderConfig {
  /** In URLs and records: lower-case letters, digits, dashes. */
  id: string;
  /** The button's label: "Sign in with <name>". */
  name: string;
  /** The issuer URL; its /.well-known/openid-configuration is read at the first sign-in. */
  issuer: string;
  clientId: string;
  /** null: a public client (PKCE alone, token_endpoint_auth_method none). */
  clientSecret: string | null;
  scopes: string[];
  /** The ID token claim holding the groups (dotted for nested: realm_access.roles). */
  claim: string;
  mappings: SsoMapping[];
}

/** `sso` section: single sign-on with OpenID Connect (docs/sso.md). */
export interface SsoConfig {
  /** The callback URL registered at every provider: https://<rampart>/api/user/auth/sso/callback. */
  redirectUri: string | null;
  providers: SsoProviderConfig[];
  /** Clock skew allowed when checking the ID token's exp, iat and nbf. */
  clockToleranceSeconds: number;
  /** How long a sign-in may take at the provider. */
  loginTimeoutSeconds: number;
  /** Allows http:// issuers (tests with a provider on loopback); never in production. */
  allowInsecureHttp: boolean;
  /** Personal API tokens (POST /api/user/tokens) expire within this many days. */
  personalTokenMaxDays: number;
}

const provider = Joi.object<SsoProviderConfig>({
  id: Joi.string().pattern(/^[a-z0-9][a-z0-9-]{0,62}$/).required(),
  name: Joi.string().min(1).max(80).required(),
  issuer: Joi.string().uri({ scheme: ['https', 'http'] }).required(),
  clientId: Joi.string().min(1).max(255).required(),
  clientSecret: Joi.string().min(1).max(1024).allow(null).default(null),
  scopes: Joi.array().items(Joi.string().pattern(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).has(Joi.string().valid('openid')).default(['openid', 'email', 'profile']),
  claim: Joi.string().min(1).max(200).default('groups'),
  mappings: Joi.array().items(Joi.object({
    value: Joi.string().min(1).max(512).required(),
    tenant: Joi.string().min(1).max(120).required(),
    role: Joi.string().valid(...ROLES).required(),
  })).min(1).required(),
});

export const ssoConfigSchema = Joi.object<SsoConfig>({
  redirectUri: Joi.string().uri({ scheme: ['https', 'http'] }).allow(null).required(),
  providers: Joi.array().items(provider).unique('id').required(),
  clockToleranceSeconds: Joi.number().integer().min(0).max(300).required(),
  loginTimeoutSeconds: Joi.number().integer().min(30).max(3600).required(),
  allowInsecureHttp: Joi.boolean().required(),
  personalTokenMaxDays: Joi.number().integer().min(1).max(3650).required(),
}).custom((value: SsoConfig, helpers) => {
  if (value.providers.length && !value.redirectUri) return helpers.message({ custom: 'sso.redirectUri is required when a provider is configured' });
  if (!value.allowInsecureHttp) {
    const plain = [value.redirectUri, ...value.providers.map((p) => p.issuer)].find((u) => u?.startsWith('http:'));
    if (plain) return helpers.message({ custom: `${plain} is not https: single sign-on needs https (sso.allowInsecureHttp is for tests on loopback)` });
  }
  return value;
});
