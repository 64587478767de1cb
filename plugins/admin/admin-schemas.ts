import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { idPattern } from '../../core/ids.ts';
import { SCOPES, TIERS } from '../../core/domain/scopes.ts';

export const tenantId = recordId('ten', 'a tenant id').required();
export const userId = recordId('usr', 'a user id').required();
export const tokenId = recordId('tok', 'a token id').required();

const iso = Joi.string().isoDate();
export const scopeList = Joi.array().items(Joi.string().valid(...SCOPES)).unique().min(1);
const tenantName = Joi.string().trim().min(1).max(120).pattern(/^[^\x00-\x1f]+$/);
/**
 * Token names end up in lists, logs and exports: no control characters (NUL, CR/LF, tab,
 * DEL, C1) and no Unicode line or paragraph separators, which could split a log line.
 */
const tokenName = Joi.string().trim().min(1).max(120)
  .pattern(/^[^\p{Cc}\u2028\u2029]+$/u)
  .messages({ 'string.pattern.base': '{#label} must not contain control characters or line breaks' });

export const tenantSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  tier: Joi.string().valid(...TIERS).required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('Tenant');

export const createTenantPayload = Joi.object({
  name: tenantName.required(),
  tier: Joi.string().valid(...TIERS).default('standard'),
}).label('CreateTenant');

export const updateTenantPayload = Joi.object({
  name: tenantName,
  tier: Joi.string().valid(...TIERS),
})
  .min(1)
  .label('UpdateTenant');

export const userSchema = Joi.object({
  id: Joi.string().required(),
  tenant_id: Joi.string().required(),
  email: Joi.string().required(),
  name: Joi.string().allow('').required(),
  scopes: Joi.array().items(Joi.string()).required(),
  disabled: Joi.boolean().required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('User');

export const createUserPayload = Joi.object({
  email: Joi.string().email({ tlds: false }).max(254).required(),
  name: Joi.string().trim().max(200).allow('').default(''),
  password: Joi.string().min(12).max(1024).required().description('At least 12 characters; stored as an scrypt hash.'),
  scopes: scopeList.required(),
}).label('CreateUser');

export const tokenSchema = Joi.object({
  id: Joi.string().required(),
  tenant_id: Joi.string().required(),
  user_id: Joi.string().allow(null).required(),
  name: Joi.string().required(),
  kind: Joi.string().valid('api', 'login', 'bootstrap').required(),
  token_prefix: Joi.string().required().description('First characters of the token, to recognise it.'),
  scopes: Joi.array().items(Joi.string()).required(),
  expires_at: iso.allow(null).required(),
  revoked_at: iso.allow(null).required(),
  last_used_at: iso.allow(null).required(),
  created_at: iso.required(),
}).label('ApiToken');

export const issuedTokenSchema = tokenSchema
  .keys({ token: Joi.string().required().description('The token. Shown once; store it now.') })
  .label('IssuedToken');

export const createTokenPayload = Joi.object({
  name: tokenName.required(),
  scopes: scopeList.required(),
  expires_at: iso.description('Expiry time (ISO 8601). Omit both expiry fields for a token that does not expire.'),
  expires_in_seconds: Joi.number().integer().min(60).max(10 * 365 * 24 * 3600),
  user_id: Joi.string().pattern(idPattern('usr')),
})
  .oxor('expires_at', 'expires_in_seconds')
  .label('CreateToken');
