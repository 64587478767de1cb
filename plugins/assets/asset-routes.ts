import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, loadedRecord, recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import type { AssetFilters } from '../../core/assets/asset-views.ts';
import type { AssetChanges, AssetDetail } from '../../core/assets/asset-service.ts';
import type { AssetInput } from '../../core/assets/asset-input.ts';
import {
  assetDetailSchema, assetIdParams, assetListItemSchema, assetListQuery, createAssetPayload, createdAssetSchema, updateAssetPayload,
} from './asset-schemas.ts';

const read = { access: { scope: ['assets:read'] } };
const write = { access: { scope: ['assets:write'] } };
const tags = ['api', 'assets'];

const NAME_RULES =
  'Names are validated and normalised per type: `domain` is converted to IDNA/punycode, lower-cased, without a trailing dot, scheme, port or path; ' +
  '`ip` is a dotted-quad IPv4 (no leading zeros) or an IPv6 address in RFC 5952 form (IPv4-mapped IPv6 becomes IPv4); ' +
  '`url` is an absolute http or https URL without credentials, normalised (lower-case scheme and host, punycode, default port and fragment removed); ' +
  '`network` is a CIDR range, stored as network address/prefix (host bits are cleared), no larger than the configured maximum (default /16 for IPv4, /48 for IPv6). ' +
  'The same normalised name and type twice in a tenant is 409 asset_exists.';

export function assetRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.assets;
  return [
    {
      method: 'GET',
      path: '/api/assets',
      options: {
        auth: read,
        tags,
        description: 'List assets',
        notes: 'List view (no metadata, finding_summary, updated_at). Ties in the sort order are broken by id in the same direction. `search` matches a case-insensitive substring of the name or of metadata keys and values.',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => service.listChangedAt(tenantId)) } },
        validate: { query: assetListQuery },
        response: { status: { 200: listOf(assetListItemSchema, 'AssetList') } },
      },
      handler: async (request) => {
        const q = request.query as Omit<AssetFilters, 'sortBy' | 'sortOrder'> & { sort_by: AssetFilters['sortBy']; sort_order: AssetFilters['sortOrder']; page: number; per_page: number };
        const filters: AssetFilters = { type: q.type, tag: q.tag, status: q.status, search: q.search, sortBy: q.sort_by, sortOrder: q.sort_order };
        const result = await service.list(callerOf(request).tenantId, filters, { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'POST',
      path: '/api/assets',
      options: {
        auth: write,
        tags,
        description: 'Register an asset',
        notes: `New assets start as pending_verification with verified=false; emits asset.created with data {asset_id, name, type, tags}. ${NAME_RULES}`,
        validate: { payload: createAssetPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(createdAssetSchema, 'CreatedAssetResponse') } },
      },
      handler: async (request, h) => {
        const data = await service.create(callerOf(request).tenantId, request.payload as AssetInput);
        return h.response({ data }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/assets/{id}',
      options: {
        auth: read,
        tags,
        description: 'Get an asset (detail view)',
        notes: 'finding_summary and risk_score count unresolved findings (status open or confirmed). risk_score = round(100 × (1 − e^(−S/10))) with S = Σ weight(severity) × CVSS/10 over those findings; weights critical 10, high 5, medium 2, low 0.5, info 0.',
        // The record read for Last-Modified is the body: one read per request.
        plugins: { rampart: { lastModified: recordLastModified((request) => service.find(callerOf(request).tenantId, String(request.params.id))) } },
        validate: { params: assetIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(assetDetailSchema, 'AssetResponse') } },
      },
      handler: async (request) => ({ data: loadedRecord<AssetDetail>(request) ?? (await service.get(callerOf(request).tenantId, String(request.params.id))) }),
    },
    {
      method: 'PUT',
      path: '/api/assets/{id}',
      options: {
        auth: write,
        tags,
        description: 'Update tags, metadata or status of an asset',
        notes: 'The spec leaves the response open: this returns the updated asset (detail view). `tags` and `metadata` replace the stored values. `status` may be `inactive` (any asset) or `active` (verified assets only; otherwise 409 asset_not_verified); pending_verification cannot be set by hand. The name and type cannot change: delete and re-register instead.',
        validate: { params: assetIdParams, payload: updateAssetPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(assetDetailSchema, 'UpdatedAssetResponse') } },
      },
      handler: async (request) => ({ data: await service.update(callerOf(request).tenantId, String(request.params.id), request.payload as AssetChanges) }),
    },
    {
      method: 'DELETE',
      path: '/api/assets/{id}',
      options: {
        auth: write,
        tags,
        description: 'Delete an asset with its findings, scans and schedules',
        notes: 'Irreversible. Everything that belongs to the asset (findings with their notes and history, scans, schedules, tags) is removed in the same transaction. The spec leaves the response open: 204 with no body.',
        validate: { params: assetIdParams, query: Joi.object({}) },
        response: { status: { 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        await service.delete(callerOf(request).tenantId, String(request.params.id));
        return h.response().code(204);
      },
    },
  ];
}
