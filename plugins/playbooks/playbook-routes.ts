import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { playbookCreatedView, playbookListItem, playbookVersionView, playbookView } from '../../core/playbooks/catalog/playbook-views.ts';
import {
  createdSchema, createPlaybookPayload, listItemSchema, listQuery, patchPayload, playbookIdParams, playbookSchema, putPlaybookPayload, versionSchema,
} from './playbook-schemas.ts';

const readAuth = { access: { scope: ['playbooks:read'] } };
const writeAuth = { access: { scope: ['playbooks:write'] } };
const tags = ['api', 'playbooks'];

/** Who made a change: the user, or the token when it belongs to no user. */
const authorOf = (request: Parameters<typeof callerOf>[0]) => callerOf(request).userId ?? callerOf(request).tokenId;

const CHECKS = 'Checked in full before anything is written: shape (400 `validation_failed`), the step graph, conditions and placeholders (400 `invalid_playbook`), every action_ref in the tenant (400 `unknown_action_ref`); each detail names the step.';

/** Playbook definitions: list, create, get, new versions, versions, enable/disable, delete. */
export function playbookRoutes(ctx: AppContext): ServerRoute[] {
  const catalog = ctx.services.playbooks;
  const id = (request: { params: Record<string, unknown> }) => String(request.params.id);
  return [
    {
      method: 'GET',
      path: '/api/playbooks',
      options: {
        auth: readAuth,
        tags,
        description: 'List playbooks',
        notes: 'Newest first; each item is the active version\'s summary (no steps) and `enabled`.',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => catalog.listChangedAt(tenantId)) } },
        validate: { query: Joi.object({ ...pageQuery, ...listQuery }) },
        response: { status: { 200: listOf(listItemSchema, 'PlaybookList') } },
      },
      handler: async (request) => {
        const { page, per_page, search, tag } = request.query as { page: number; per_page: number; search?: string; tag?: string };
        const result = await catalog.list(callerOf(request).tenantId, { search, tag }, { page, perPage: per_page });
        return { data: result.rows.map(playbookListItem), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'POST',
      path: '/api/playbooks',
      options: {
        auth: writeAuth,
        tags,
        description: 'Create a playbook',
        notes: `${CHECKS} Same name in the tenant: 409 \`playbook_exists\`. Enabled at once (PATCH disables).`,
        validate: { payload: createPlaybookPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(createdSchema, 'PlaybookCreatedResponse') } },
      },
      handler: async (request, h) => {
        const created = await catalog.create(callerOf(request).tenantId, request.payload, authorOf(request));
        return h.response({ data: playbookCreatedView(created) }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/playbooks/{id}',
      options: {
        auth: readAuth,
        tags,
        description: 'Get a playbook',
        notes: 'The full definition of the active version, with every step.',
        plugins: {
          rampart: {
            lastModified: recordLastModified(async (request) => {
              const found = await catalog.get(callerOf(request).tenantId, id(request)).catch(() => null);
              return found ? playbookView(found) : null;
            }),
          },
        },
        validate: { params: playbookIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(playbookSchema, 'PlaybookResponse') } },
      },
      handler: async (request) => ({ data: playbookView(await catalog.get(callerOf(request).tenantId, id(request))) }),
    },
    {
      method: 'PUT',
      path: '/api/playbooks/{id}',
      options: {
        auth: writeAuth,
        tags,
        description: 'Register a new version of a playbook',
        notes: `A full definition whose \`version\` is higher than every registered one (409 \`version_not_higher\` with \`newest_version\`); it becomes the active version, earlier ones stay listed. \`name\` omitted keeps the name. ${CHECKS}`,
        validate: { params: playbookIdParams, payload: putPlaybookPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(playbookSchema, 'PlaybookResponse') } },
      },
      handler: async (request) => ({ data: playbookView(await catalog.addVersion(callerOf(request).tenantId, id(request), request.payload, authorOf(request))) }),
    },
    {
      method: 'GET',
      path: '/api/playbooks/{id}/versions',
      options: {
        auth: readAuth,
        tags,
        description: 'List the versions of a playbook',
        notes: 'Highest version first, each with its whole definition; `active` marks the one runs use.',
        validate: { params: playbookIdParams, query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(versionSchema, 'PlaybookVersionList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const { activeVersionId, page: result } = await catalog.versions(callerOf(request).tenantId, id(request), { page, perPage: per_page });
        return { data: result.rows.map((v) => playbookVersionView(v, activeVersionId)), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'PATCH',
      path: '/api/playbooks/{id}',
      options: {
        auth: writeAuth,
        tags,
        description: 'Enable or disable a playbook',
        notes: '`{enabled}`. A disabled playbook is never triggered by events. Answers the full definition.',
        validate: { params: playbookIdParams, payload: patchPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(playbookSchema, 'PlaybookResponse') } },
      },
      handler: async (request) => {
        const { enabled } = request.payload as { enabled: boolean };
        return { data: playbookView(await catalog.setEnabled(callerOf(request).tenantId, id(request), enabled)) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/playbooks/{id}',
      options: {
        auth: writeAuth,
        tags,
        description: 'Delete a playbook',
        notes: 'It leaves lists, GET and triggers, and its name is free again; runs keep the version they ran. 204.',
        validate: { params: playbookIdParams, query: Joi.object({}) },
        response: { status: { 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        await catalog.remove(callerOf(request).tenantId, id(request));
        return h.response().code(204);
      },
    },
  ];
}
