import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import type { FindingFilters, FindingSort } from '../../core/findings/finding-views.ts';
import type { FindingStatus } from '../../core/domain/finding-status.ts';
import {
  enrichedFindingListItemSchema, findingDetailSchema, findingIdParams, findingListQuery, statsSchema, statusPayload, statusResultSchema,
} from './finding-schemas.ts';

const read = { access: { scope: ['findings:read'] } };
const write = { access: { scope: ['findings:write'] } };
const tags = ['api', 'findings'];

/** Who acted, as recorded in notes, history and updated_by: the user id, or the token id of a token without a user. */
export function actorOf(request: Request): string {
  const caller = callerOf(request);
  return caller.userId ?? caller.tokenId;
}

export function findingRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.findings;
  return [
    {
      method: 'GET',
      path: '/api/findings',
      options: {
        auth: read,
        tags,
        description: 'List findings',
        notes: 'List view: no cvss_vector, evidence, tags or notes. `severity` sorts by rank (critical > high > medium > low > info); ties are broken by id in the same direction. cvss_min/cvss_max are inclusive. `search` is an index-backed word search over title and description, every term required: `word`, `word*` (prefix), `"a phrase"`; case-insensitive; each word 3 to 84 letters, digits or _ (else 400 validation_failed); docs/api.md, "Finding search". With no filter but severity/status, meta.total comes from maintained counters. Each item carries `kev` and `epss`, read from the KEV and EPSS feeds in force for the finding\'s CVEs (docs/feeds.md, "On findings"); `kev=true|false` and `epss_min` filter on them, `sort_by=epss` sorts by the highest score. Last-Modified is the later of the last finding change and the last feed load.',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => service.listChangedAtWithFeeds(tenantId)) } },
        validate: { query: findingListQuery },
        response: { status: { 200: listOf(enrichedFindingListItemSchema, 'FindingList') } },
      },
      handler: async (request) => {
        const q = request.query as unknown as FindingFilters & { sort_by: FindingSort['sortBy']; sort_order: FindingSort['sortOrder']; page: number; per_page: number };
        const { sort_by, sort_order, page, per_page, ...filters } = q;
        const result = await service.list(callerOf(request).tenantId, filters, { sortBy: sort_by, sortOrder: sort_order }, { page, perPage: per_page });
        return { data: result.rows, meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/findings/stats',
      options: {
        auth: read,
        tags,
        description: 'Finding statistics of the tenant',
        notes: 'by_severity and by_status each cover every finding (each sums to total). No Last-Modified: the 30-day window moves with time even when no finding changes. trend.last_30_days covers the 30 UTC calendar days ending today: `daily` lists them oldest first ({date, new, resolved}: findings created that day, distinct findings moved to resolved that day); `new` and `resolved` are their sums, `net_change` = new − resolved. Read from counters maintained with every finding change: the cost does not grow with the number of findings.',
        validate: { query: Joi.object({}) },
        response: { status: { 200: dataOf(statsSchema, 'FindingStatsResponse') } },
      },
      handler: async (request) => ({ data: await service.stats(callerOf(request).tenantId) }),
    },
    {
      method: 'GET',
      path: '/api/findings/{id}',
      options: {
        auth: read,
        tags,
        description: 'Get a finding (detail view)',
        notes: 'Adds cvss_vector, evidence, tags, notes (`{id, author, text, created_at}`, oldest first; author is the user id, or the token id for a token without a user) and status_history (oldest first; the first entry, with old_status null, records the creation); sources (each tool rule that reported it, with first/last seen and the keys it joined on) and dedup (the fingerprint keys and those that matched): docs/finding-fingerprints.md. kev and epss as in the list (docs/feeds.md, "On findings"); Last-Modified is the later of updated_at and the last feed load.',
        plugins: { rampart: { lastModified: (request) => service.updatedAt(callerOf(request).tenantId, String(request.params.id)) } },
        validate: { params: findingIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(findingDetailSchema, 'FindingResponse') } },
      },
      handler: async (request) => ({ data: await service.get(callerOf(request).tenantId, String(request.params.id)) }),
    },
    {
      method: 'PUT',
      path: '/api/findings/{id}/status',
      options: {
        auth: write,
        tags,
        description: 'Change the status of a finding',
        notes: 'Any status may move to any status (the spec names no restriction). A move is recorded in status_history with who and when, emits finding.status_changed {finding_id, old_status, new_status, asset_id, updated_by} and recomputes the asset\'s risk_score. `note` is appended to notes. Sending the current status again only appends the note (no history entry, no event). updated_by is the user id, or the token id for a token without a user.',
        validate: { params: findingIdParams, payload: statusPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(statusResultSchema, 'FindingStatusResponse') } },
      },
      handler: async (request) => {
        const body = request.payload as { status: FindingStatus; note?: string };
        return { data: await service.setStatus(callerOf(request).tenantId, String(request.params.id), actorOf(request), body.status, body.note) };
      },
    },
  ];
}
