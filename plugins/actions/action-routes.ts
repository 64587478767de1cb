import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import type { ReferenceActionInput } from '../../core/actions/action-draft.ts';
import { actionView, createdView } from '../../core/actions/action-views.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { actionIdParams, actionSchema, createActionPayload, createdSchema, listQuery } from './action-schemas.ts';

export const readAuth = { access: { scope: ['actions:read'] } };
export const writeAuth = { access: { scope: ['actions:write'] } };
export const tags = ['api', 'actions'];

/** Who made a change: the user, or the token when it belongs to no user. */
export const authorOf = (request: Parameters<typeof callerOf>[0]) => callerOf(request).userId ?? callerOf(request).tokenId;

/** The reference view: list, create, details. */
export function actionRoutes(ctx: AppContext): ServerRoute[] {
  const catalog = ctx.services.actions;
  return [
    {
      method: 'GET',
      path: '/api/actions',
      options: {
        auth: readAuth,
        tags,
        description: 'List actions',
        notes: 'Actions of both views (reference and definition), newest first, each in the reference view (its active version\'s fields).',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => catalog.listChangedAt(tenantId)) } },
        validate: { query: Joi.object({ ...pageQuery, ...listQuery }) },
        response: { status: { 200: listOf(actionSchema, 'ActionList') } },
      },
      handler: async (request) => {
        const { page, per_page, type, search } = request.query as { page: number; per_page: number; type?: string; search?: string };
        const result = await catalog.list(callerOf(request).tenantId, { type, search }, { page, perPage: per_page });
        return { data: result.rows.map(actionView), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'POST',
      path: '/api/actions',
      options: {
        auth: writeAuth,
        tags,
        description: 'Create an action (reference view)',
        notes: 'Usable at once. `config` is checked against the (type, executor) pair: see docs/api.md. Same name in the tenant: 409 `action_exists`.',
        validate: { payload: createActionPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(createdSchema, 'ActionCreatedResponse') } },
      },
      handler: async (request, h) => {
        const created = await catalog.createReference(callerOf(request).tenantId, request.payload as ReferenceActionInput, authorOf(request));
        return h.response({ data: createdView(created) }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/actions/{id}',
      options: {
        auth: readAuth,
        tags,
        description: 'Get an action',
        notes: 'The full reference view: the action and its active version (executor detail, parameters, config, input mapping, timeout, retry).',
        plugins: {
          rampart: {
            lastModified: recordLastModified(async (request) => {
              const found = await catalog.get(callerOf(request).tenantId, String(request.params.id)).catch(() => null);
              return found ? actionView(found) : null;
            }),
          },
        },
        validate: { params: actionIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(actionSchema, 'ActionResponse') } },
      },
      handler: async (request) => ({ data: actionView(await catalog.get(callerOf(request).tenantId, String(request.params.id))) }),
    },
  ];
}
