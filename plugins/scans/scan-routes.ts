import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { collectionLastModified, type LastModifiedSource } from '../../core/http/conditional-get.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import type { ScanFilters } from '../../core/scans/scan-fields.ts';
import type { ScanInput } from '../../core/scans/scan-service.ts';
import type { Severity } from '../../core/domain/severity.ts';
import { toIsoRequired } from '../../core/time.ts';
import { findingListItemSchema } from '../findings/finding-schemas.ts';
import {
  createdScanFlatSchema, createdScanSchema, createScanPayload, formatQuery, resultsQuery, scanIdParams, scanListQuery, scanSchema, scanScopeSchema, scanStatusSchema,
} from './scan-schemas.ts';

const read = { access: { scope: ['scan:read'] } };
const write = { access: { scope: ['scan:write'] } };
const tags = ['api', 'scans'];

const VARIANTS =
  'Two response variants (spec): the wrapped `{data: {...}}` form is the default; add `?format=flat` to get the flat form (fields at the top level). ' +
  'The query parameter was chosen over a header so that either variant can be requested from any client and shows in logs and caches.';

/** POST /api/scan/create, GET /api/scans, GET /api/scan/{id}, status, cancel, results. */
export function scanRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.scans;
  const scanUpdatedAt: LastModifiedSource = (request) => service.updatedAt(callerOf(request).tenantId, String(request.params.id));
  return [
    {
      method: 'POST',
      path: '/api/scan/create',
      options: {
        auth: write,
        tags,
        description: 'Queue a scan of an asset',
        notes:
          `${VARIANTS} Wrapped: \`{data: {scan_id, asset_id, scan_type, status, priority, created_at, estimated_duration_minutes}}\`; flat: \`{scan_id, status, created_at, estimated_duration}\` (seconds, null until the planned checks were ever measured). ` +
          'Both scan-type lists are accepted; the scanner registry decides which checks serve the type for the asset\'s type, and a type no loaded scanner can serve for it is 400 scan_type_not_supported. `custom` needs options.categories. Options a loaded scanner refuses (e.g. options.ports outside 1-65535) are 400 validation_failed with details naming the option, and nothing is queued. ' +
          'Errors: 404 unknown asset; 409 scan_in_progress with the `scan_id` of the queued or running scan of the asset; 400 asset_not_verified when the asset\'s ownership is not verified (config scans.requireVerifiedAsset); 400 active_scan_not_allowed for options.active on an unverified asset (outside the loopback trial); 400 validation_failed for options.ports naming other ports in an origin-only composed scan of a URL asset; 400 target_denied when the asset is on the scan deny list (scans.denyNetworks / scans.denySelf). ' +
          'With callback_url the final summary is POSTed there, signed like webhooks (X-SVC-Signature and Standard Webhooks headers) with callback_secret (generated and returned once when omitted), retried on the webhook schedule. Emits scan.created. Rate limit: 10 requests per minute.',
        plugins: { rampart: { rateLimit: endpointLimit('scan-create', 10) } },
        validate: { payload: createScanPayload, query: formatQuery },
        response: { status: { 201: Joi.alternatives(dataOf(createdScanSchema, 'CreatedScanResponse'), createdScanFlatSchema).label('CreateScanResponse') } },
      },
      handler: async (request, h) => {
        const created = await service.create(callerOf(request).tenantId, request.payload as ScanInput);
        const { row } = created;
        const secret = created.callbackSecret ? { callback_secret: created.callbackSecret } : {};
        if ((request.query as { format: string }).format === 'flat') {
          return h.response({ scan_id: row.id, status: row.status, created_at: toIsoRequired(row.created_at), estimated_duration: created.estimatedSeconds, ...secret }).code(201);
        }
        const data = { scan_id: row.id, asset_id: row.asset_id, scan_type: row.scan_type, status: row.status, priority: row.priority, created_at: toIsoRequired(row.created_at), estimated_duration_minutes: created.estimatedMinutes, ...secret };
        return h.response({ data }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/scans',
      options: {
        auth: read,
        tags,
        description: 'List scans',
        notes: 'The spec leaves the list shape open: `{data: [scan as in GET /api/scan/{id}], meta: {total, page, per_page, total_pages}}`, newest first. `from`/`to` bound created_at (inclusive).',
        plugins: { rampart: { lastModified: collectionLastModified((tenantId) => service.listChangedAt(tenantId)) } },
        validate: { query: scanListQuery },
        response: { status: { 200: listOf(scanSchema, 'ScanList') } },
      },
      handler: async (request) => {
        const q = request.query as { status?: ScanFilters['status']; asset_id?: string; scan_type?: string; from?: string; to?: string; page: number; per_page: number };
        const filters: ScanFilters = { status: q.status, asset_id: q.asset_id, scan_type: q.scan_type, from: q.from ? Date.parse(q.from) : undefined, to: q.to ? Date.parse(q.to) : undefined };
        const result = await service.list(callerOf(request).tenantId, filters, { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/scan/{id}',
      options: {
        auth: read,
        tags,
        description: 'Get scan details',
        notes: 'The spec names this endpoint "scan details" without a path; it is GET /api/scan/{id}. Besides the spec\'s fields it carries current_phase, finding_count, options, callback_url, schedule_id, error (for failed scans), checks {total, done, failed}, scope (composed scans of a URL asset: origin or host) and check_results: every planned check with its status (pending, completed, error, timeout, cancelled), error, duration_ms, finding_count and warnings. A `completed` scan with checks.failed > 0 is partial: those checks\' errors say why. finding_summary counts the findings this scan saw (new or seen again), by severity.',
        plugins: { rampart: { lastModified: scanUpdatedAt } },
        validate: { params: scanIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(scanSchema, 'ScanResponse') } },
      },
      handler: async (request) => ({ data: await service.get(callerOf(request).tenantId, String(request.params.id)) }),
    },
    {
      method: 'GET',
      path: '/api/scan/{id}/status',
      options: {
        auth: read,
        tags,
        description: 'Scan status, progress, phase and ETA',
        notes: `${VARIANTS} progress (0-100) counts finished checks; eta_seconds comes from the measured durations of the unfinished checks; current_phase is \`<scanner>:<category>\` of the next check, or queued/starting/finalizing/completed/failed/cancelled. Poll at most once per second, backing off gradually; If-Modified-Since is answered 304 while nothing changed.`,
        plugins: { rampart: { lastModified: scanUpdatedAt } },
        validate: { params: scanIdParams, query: formatQuery },
        response: { status: { 200: Joi.alternatives(dataOf(scanStatusSchema, 'ScanStatusResponse'), scanStatusSchema).label('ScanStatusVariants') } },
      },
      handler: async (request) => {
        const status = await service.status(callerOf(request).tenantId, String(request.params.id));
        return (request.query as { format: string }).format === 'flat' ? status : { data: status };
      },
    },
    {
      method: 'POST',
      path: '/api/scan/{id}/cancel',
      options: {
        auth: write,
        tags,
        description: 'Cancel a queued or running scan',
        notes: 'The spec leaves the response open: 200 with the scan (status `cancelled`). Running checks are stopped within about two seconds; findings already recorded stay and are listed by GET /api/scan/{id}/results. A finished scan answers 409 scan_finished.',
        validate: { params: scanIdParams, query: Joi.object({}), payload: Joi.object({}).allow(null) },
        response: { status: { 200: dataOf(scanSchema, 'CancelledScanResponse') } },
      },
      handler: async (request) => ({ data: await service.cancel(callerOf(request).tenantId, String(request.params.id)) }),
    },
    {
      method: 'GET',
      path: '/api/scan/{id}/results',
      options: {
        auth: read,
        tags,
        description: 'Findings of a scan',
        notes: 'Every finding the scan reported, new or seen again (a finding found again by a later scan is listed in both scans\' results), as finding list items, most severe first. `severity` is a comma-separated list. `scope` says what a composed scan (full, quick, custom) of a URL asset covered (`origin` by default, `host` with options.include_host), null for other scans.',
        validate: { params: scanIdParams, query: resultsQuery },
        response: { status: { 200: listOf(findingListItemSchema, 'ScanResults').keys({ scope: scanScopeSchema.allow(null).required() }) } },
      },
      handler: async (request) => {
        const q = request.query as { severity?: Severity[]; page: number; per_page: number };
        const result = await service.results(callerOf(request).tenantId, String(request.params.id), q.severity, { page: q.page, perPage: q.per_page });
        return { data: result.rows, meta: listMeta(result.total, q.page, q.per_page), scope: result.scope };
      },
    },
  ];
}
