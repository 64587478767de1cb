import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import type { ActionPatch } from '../../core/actions/action-catalog.ts';
import type { DefinitionInput } from '../../core/actions/action-draft.ts';
import { actionView, versionView } from '../../core/actions/action-views.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { authorOf, readAuth, tags, writeAuth } from './action-routes.ts';
import { actionIdParams, actionSchema, definitionPayload, patchPayload, registeredSchema, versionPayload, versionSchema } from './action-schemas.ts';

/** The authoring view: register, new versions, the version list, enable and go back. */
export function definitionRoutes(ctx: AppContext): ServerRoute[] {
  const catalog = ctx.services.actions;
  return [
    {
      method: 'POST',
      path: '/api/actions/definitions',
      options: {
        auth: writeAuth,
        tags,
        description: 'Register an action definition (authoring view)',
        notes: 'Answers the spec\'s `{id, name, version, status: "registered"}`, not wrapped in `data`. Disabled unless `enabled: true`. Same name in the tenant: 409 `action_exists`.',
        validate: { payload: definitionPayload, query: Joi.object({}) },
        response: { status: { 201: registeredSchema } },
      },
      handler: async (request, h) => {
        const { action, version } = await catalog.register(callerOf(request).tenantId, request.payload as DefinitionInput & { name: string }, authorOf(request));
        return h.response({ id: action.id, name: action.name, version: version.version, status: 'registered' }).code(201);
      },
    },
    {
      method: 'POST',
      path: '/api/actions/definitions/{id}/versions',
      options: {
        auth: writeAuth,
        tags,
        description: 'Register a new version of a definition',
        notes: 'A full definition with a higher semantic version (409 `version_not_higher` otherwise); `name` must be the action\'s or omitted. The new version becomes the active one; PATCH `active_version` goes back. Answers like registration.',
        validate: { params: actionIdParams, payload: versionPayload, query: Joi.object({}) },
        response: { status: { 201: registeredSchema } },
      },
      handler: async (request, h) => {
        const { action, version } = await catalog.addVersion(callerOf(request).tenantId, String(request.params.id), request.payload as DefinitionInput, authorOf(request));
        return h.response({ id: action.action.id, name: action.action.name, version: version.version, status: 'registered' }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/actions/definitions/{id}/versions',
      options: {
        auth: readAuth,
        tags,
        description: 'List the versions of an action',
        notes: 'Newest (highest) version first, `active` marking the one runs use. Works for reference-view actions too (they have the one version they were created with).',
        validate: { params: actionIdParams, query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(versionSchema, 'ActionVersionList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const { action, page: result } = await catalog.versions(callerOf(request).tenantId, String(request.params.id), { page, perPage: per_page });
        return { data: result.rows.map((v) => versionView(v, action.action.activeVersionId)), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'PATCH',
      path: '/api/actions/definitions/{id}',
      options: {
        auth: writeAuth,
        tags,
        description: 'Enable or disable a definition, or change its active version',
        notes: '`{enabled}` and/or `{active_version}` (a registered version: 400 `unknown_version` otherwise). Answers the action\'s reference view. Reference-view actions: 409 `not_a_definition`.',
        validate: { params: actionIdParams, payload: patchPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(actionSchema, 'ActionResponse') } },
      },
      handler: async (request) => ({ data: actionView(await catalog.patch(callerOf(request).tenantId, String(request.params.id), request.payload as ActionPatch)) }),
    },
  ];
}
