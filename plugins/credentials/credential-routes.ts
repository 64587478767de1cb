import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { CREDENTIAL_NAME_PATTERN } from '../../core/actions/action-kinds.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { MAX_CREDENTIAL_LENGTH, MIN_CREDENTIAL_LENGTH, type CredentialInput, type CredentialMeta, type CredentialRotation } from '../../core/secrets/credential-store.ts';
import { toIsoRequired } from '../../core/time.ts';

const auth = { access: { scope: ['integrations:manage'] } };
const tags = ['api', 'credentials'];

const name = Joi.string().pattern(CREDENTIAL_NAME_PATTERN).messages({ 'string.pattern.base': '{#label} must be 1-100 of A-Z a-z 0-9 _ . -' });
const value = Joi.string().min(MIN_CREDENTIAL_LENGTH).max(MAX_CREDENTIAL_LENGTH)
  .description(`Write-only, ${MIN_CREDENTIAL_LENGTH}-${MAX_CREDENTIAL_LENGTH} characters (shorter values cannot be masked safely in outputs and logs).`);
const nameParams = Joi.object({ name: name.required() });

const credentialSchema = Joi.object({
  name: Joi.string().required(),
  has_sandbox_value: Joi.boolean().required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).label('Credential');

const view = (c: CredentialMeta) => ({ name: c.name, has_sandbox_value: c.hasSandboxValue, created_at: toIsoRequired(c.createdAt), updated_at: toIsoRequired(c.updatedAt) });

/** The tenant credential store: values go in, never come out (only runs resolve them). */
export function credentialRoutes(ctx: AppContext): ServerRoute[] {
  const store = ctx.services.credentials;
  return [
    {
      method: 'POST',
      path: '/api/credentials',
      options: {
        auth,
        tags,
        description: 'Store a credential',
        notes: '`value` (and `sandbox_value`, which sandbox runs get instead) are sealed at rest and never returned. Same name: 409 `credential_exists` (rotate with PUT).',
        validate: { payload: Joi.object({ name: name.required(), value: value.required(), sandbox_value: value }).label('CreateCredential'), query: Joi.object({}) },
        response: { status: { 201: dataOf(credentialSchema, 'CredentialResponse') } },
      },
      handler: async (request, h) => h.response({ data: view(await store.create(callerOf(request).tenantId, request.payload as CredentialInput)) }).code(201),
    },
    {
      method: 'GET',
      path: '/api/credentials',
      options: {
        auth,
        tags,
        description: 'List credentials',
        notes: 'Names and timestamps only, by name.',
        validate: { query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(credentialSchema, 'CredentialList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await store.list(callerOf(request).tenantId, { page, perPage: per_page });
        return { data: result.rows.map(view), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/credentials/{name}',
      options: {
        auth,
        tags,
        description: 'Get a credential\'s name and timestamps',
        validate: { params: nameParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(credentialSchema, 'CredentialResponse') } },
      },
      handler: async (request) => ({ data: view(await store.get(callerOf(request).tenantId, String(request.params.name))) }),
    },
    {
      method: 'PUT',
      path: '/api/credentials/{name}',
      options: {
        auth,
        tags,
        description: 'Rotate a credential',
        notes: 'A new `value` and/or `sandbox_value` (`null` removes the sandbox value). Runs started from now on get the new value.',
        validate: { params: nameParams, payload: Joi.object({ value, sandbox_value: value.allow(null) }).min(1).label('RotateCredential'), query: Joi.object({}) },
        response: { status: { 200: dataOf(credentialSchema, 'CredentialResponse') } },
      },
      handler: async (request) => ({ data: view(await store.rotate(callerOf(request).tenantId, String(request.params.name), request.payload as CredentialRotation)) }),
    },
    {
      method: 'DELETE',
      path: '/api/credentials/{name}',
      options: {
        auth,
        tags,
        description: 'Delete a credential',
        notes: '204 with no body. Actions whose secret parameters name it then fail to start with 400 `credential_missing`.',
        validate: { params: nameParams, query: Joi.object({}) },
        response: { status: { 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        await store.delete(callerOf(request).tenantId, String(request.params.name));
        return h.response().code(204);
      },
    },
  ];
}
