import type { Readable } from 'node:stream';
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { PayloadTooLargeError } from '../../core/errors.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import { toIsoRequired } from '../../core/time.ts';
import {
  assetIdParams, changeListQuery, changeSchema, componentDetailSchema, componentIdParams, componentListQuery, componentSchema, sbomSchema, uploadResultSchema, whereRunningQuery, whereRunningSchema,
} from './inventory-schemas.ts';

const read = { access: { scope: ['assets:read'] } };
const write = { access: { scope: ['assets:write'] } };
const tags = ['api', 'inventory'];
const CONTENT_TYPES = ['application/json', 'application/vnd.cyclonedx+json', 'application/spdx+json', 'text/plain', 'application/octet-stream'];

type Paged = { page: number; per_page: number };

/** The software inventory: SBOM uploads per asset, components, "where do we run X". */
export function inventoryRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.inventory;
  const { maxBytes, maxResults, uploadTimeoutMs } = ctx.config.imports;
  return [
    {
      method: 'POST',
      path: '/api/assets/{id}/sbom',
      options: {
        auth: write,
        tags,
        description: 'Upload the asset\'s SBOM (CycloneDX 1.4-1.6 or SPDX 2.3, JSON): it becomes the asset\'s inventory',
        notes: [
          'The body is the SBOM as the generator wrote it (any of ' + CONTENT_TYPES.join(', ') + '); the format is read from the document (`bomFormat` / `spdxVersion`). Components (CycloneDX `components`, nested ones included; SPDX `packages` except the one the document describes) are recorded with name, group, version, package URL and licences, and the dependency edges between them (CycloneDX `dependencies`; SPDX DEPENDS_ON and *_DEPENDENCY_OF relationships).',
          'A new upload replaces the asset\'s inventory; what changed against the previous one (added, removed, upgraded, downgraded, changed) is kept: GET /api/assets/{id}/component-changes.',
          'The whole document is read before anything is written: a malformed or truncated document, an unsupported version, a component without a name, a malformed package URL or an edge naming a component that is not in the document is a 400 invalid_sbom whose `details[0].field` names the JSON path (`$.components[3].purl`) or the line (`line 17, column 4`), and nothing changes. Two uploads for one asset at once: the one that finishes second is a 409 sbom_upload_conflict and is not recorded.',
          `Limits (the import limits, imports.*): ${maxBytes} bytes (413; streamed to a temporary file, never held in memory), ${maxResults} components (413), uploads must arrive within ${uploadTimeoutMs} ms. Rate limit: 10 uploads per minute per tenant. Formats and mapping: docs/inventory.md.`,
        ].join('\n\n'),
        plugins: { rampart: { rateLimit: endpointLimit('sbom-upload', 10), errors: [404, 409, 413, 415] } },
        payload: { output: 'stream', parse: false, maxBytes: Number.MAX_SAFE_INTEGER, allow: CONTENT_TYPES, timeout: uploadTimeoutMs },
        validate: { params: assetIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(uploadResultSchema, 'SbomUploadResponse') } },
      },
      handler: async (request) => {
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) throw new PayloadTooLargeError(`An SBOM may be at most ${maxBytes} bytes; nothing was recorded.`, { max_bytes: maxBytes });
        const caller = callerOf(request);
        const body = request.payload as Readable;
        try {
          return { data: await service.upload(caller.tenantId, String(request.params.id), caller.userId ?? caller.tokenId, body) };
        } finally {
          body.resume();
        }
      },
    },
    {
      method: 'GET',
      path: '/api/assets/{id}/sboms',
      options: {
        auth: read,
        tags,
        description: 'The asset\'s SBOM uploads, newest first',
        validate: { params: assetIdParams, query: Joi.object({ page: componentListQuery.extract('page'), per_page: componentListQuery.extract('per_page') }) },
        response: { status: { 200: listOf(sbomSchema, 'SbomList') } },
      },
      handler: async (request) => {
        const q = request.query as Paged;
        const result = await service.sboms(callerOf(request).tenantId, String(request.params.id), { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/assets/{id}/components',
      options: {
        auth: read,
        tags,
        description: 'The asset\'s inventory: the components of its current SBOM',
        notes: 'Sorted by name. Empty until an SBOM is uploaded. `finding_count` counts the findings that concern each component (docs/inventory.md#findings-and-components).',
        validate: { params: assetIdParams, query: componentListQuery },
        response: { status: { 200: listOf(componentSchema, 'ComponentList') } },
      },
      handler: async (request) => {
        const q = request.query as Paged & { search?: string };
        const result = await service.components(callerOf(request).tenantId, String(request.params.id), { search: q.search }, { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/assets/{id}/component-changes',
      options: {
        auth: read,
        tags,
        description: 'How the asset\'s inventory changed, upload by upload, newest first',
        notes: '`added` and `removed` name a package version that came or went; one version of a package replaced by another is `upgraded`, `downgraded`, or `changed` when the two versions cannot be ordered. The first upload lists every component as added.',
        validate: { params: assetIdParams, query: changeListQuery },
        response: { status: { 200: listOf(changeSchema, 'InventoryChangeList') } },
      },
      handler: async (request) => {
        const q = request.query as Paged & { sbom_id?: string };
        const result = await service.changes(callerOf(request).tenantId, String(request.params.id), q.sbom_id ?? null, { page: q.page, perPage: q.per_page });
        const data = result.rows.map((r) => ({ id: Number(r.id), sbom_id: r.sbom_id, change: r.change, name: r.name, package: r.purl_base, old_version: r.old_version, new_version: r.new_version, created_at: toIsoRequired(Number(r.created_at)) }));
        return { data, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/components',
      options: {
        auth: read,
        tags,
        description: 'Where do we run this package: every asset whose inventory carries it, with versions',
        notes: '`purl` without a version matches every version of the package (qualifiers and subpath are ignored; names are compared as the package URL specification says, e.g. case-insensitively for npm and PyPI); with a version, only that version. `name` matches components by exact name, case-insensitive. `search` narrows by a substring of the name. With none of the three, every component of the tenant\'s inventories. One row per component: an asset carrying two versions has two rows.',
        validate: { query: whereRunningQuery },
        response: { status: { 200: listOf(whereRunningSchema, 'ComponentsInUse') } },
      },
      handler: async (request) => {
        const q = request.query as Paged & { purl?: string; name?: string; search?: string };
        const result = await service.whereRunning(callerOf(request).tenantId, { purl: q.purl, name: q.name, search: q.search }, { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/components/{id}',
      options: {
        auth: { access: { scope: ['+assets:read', '+findings:read'] } },
        tags,
        description: 'A component of an asset\'s inventory: its dependencies and the findings that concern it',
        notes: 'Needs both assets:read and findings:read. A component of a superseded upload is a 404. `findings` are linked by the rule in docs/inventory.md#findings-and-components (at most 1,000 per asset are examined); `kev` says whether one of the finding\'s CVEs is in the KEV catalog in force (null while none is loaded), `epss` is the highest EPSS score of its CVEs (null without one); see docs/feeds.md.',
        validate: { params: componentIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(componentDetailSchema, 'ComponentResponse') } },
      },
      handler: async (request) => ({ data: await service.component(callerOf(request).tenantId, String(request.params.id)) }),
    },
  ];
}
