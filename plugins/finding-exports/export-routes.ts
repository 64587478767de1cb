import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { recordLastModified } from '../../core/http/conditional-get.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import type { ExportFilters } from '../../core/exports/export-views.ts';
import type { ExportFormat } from '../../core/exports/export-formats.ts';
import { exportIdParams, exportPayload, exportSchema } from './export-schemas.ts';
import { exportView } from './export-view.ts';

const auth = { access: { scope: ['findings:read'] } };
const tags = ['api', 'findings'];

/** A file response: streamed, never cached, always a download. */
function fileResponse(h: ResponseToolkit, stream: Readable, contentType: string, fileName: string, length?: number) {
  const response = h.response(stream).type(contentType)
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff');
  if (length !== undefined) response.bytes(length);
  return response;
}

export function exportRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.exports;
  const { syncMaxRows, maxRows, pdfMaxRows, ttlSeconds, maxPendingPerTenant } = ctx.config.exports;
  return [
    {
      method: 'POST',
      path: '/api/findings/export',
      options: {
        auth,
        tags,
        description: 'Export findings as CSV, JSON or PDF',
        notes: [
          `\`filters\` takes the keys of GET /api/findings (severity as a comma list or an array, status, asset_id, scan_id, cvss_min, cvss_max, search, sort_by, sort_order); page and per_page, when given together, export just that page, otherwise every matching finding is exported. Exports are read-only, so the scope is findings:read. Limited to 5 requests per minute per tenant.`,
          `Up to ${syncMaxRows} matching findings: 200 with the file itself, streamed (Content-Type text/csv, application/json or application/pdf; Content-Disposition attachment; filename="findings-<UTC time>.<ext>"). More: 202 with the export record; it is written in the background, its \`status_url\` (also in the Location header) reports progress and its \`download_url\` answers the file once \`status\` is \`completed\` (409 export_not_ready before). Files are kept ${ttlSeconds} s, then deleted (download answers 410 export_expired).`,
          `CSV: header row, one row per finding, evidence as evidence_<key> columns, references space-separated, tags comma-separated; cells starting with = + - @ TAB or CR get a leading ' so spreadsheets do not evaluate them (CSV injection). JSON: one array of finding records (the detail view without notes and status history). PDF: summary charts (by severity, by status, 30-day trend) over the filtered findings, then each finding's details.`,
          `Limits: at most ${maxRows} findings per CSV/JSON export and ${pdfMaxRows} per PDF (400 export_too_large), at most ${maxPendingPerTenant} background exports queued or running per tenant (409 export_limit_reached).`,
        ].join('\n\n'),
        plugins: { rampart: { rateLimit: endpointLimit('findings-export', 5), errors: [409] } },
        validate: { query: Joi.object({}), payload: exportPayload },
        response: { status: { 200: true, 202: dataOf(exportSchema, 'FindingExportAccepted') } },
      },
      handler: async (request, h) => {
        const caller = callerOf(request);
        const { format, filters } = request.payload as { format: ExportFormat; filters: ExportFilters };
        const started = await service.start({ tenantId: caller.tenantId, requestedBy: caller.userId ?? caller.tokenId, format, filters });
        if (started.kind === 'file') return fileResponse(h, started.stream, started.contentType, started.fileName);
        const view = exportView(started.job);
        return h.response({ data: view }).code(202).header('location', String(view.status_url));
      },
    },
    {
      method: 'GET',
      path: '/api/findings/exports/{id}',
      options: {
        auth,
        tags,
        description: 'Status of a background findings export',
        notes: 'status: queued → running → completed (download ready until expires_at) → expired (file deleted), or failed. Another tenant\'s export is 404.',
        plugins: {
          rampart: {
            lastModified: recordLastModified(async (request) => {
              const job = await service.get(callerOf(request).tenantId, (request.params as { id: string }).id).catch(() => null);
              return job ? { updated_at: new Date(job.updatedAt).toISOString() } : null;
            }),
          },
        },
        validate: { params: exportIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(exportSchema, 'FindingExportResponse') } },
      },
      handler: async (request) => ({ data: exportView(await service.get(callerOf(request).tenantId, (request.params as { id: string }).id)) }),
    },
    {
      method: 'GET',
      path: '/api/findings/exports/{id}/download',
      options: {
        auth,
        tags,
        description: 'Download the file of a background findings export',
        notes: '200 with the file (Content-Type by format, Content-Length, Content-Disposition attachment; filename="findings-<export id>.<ext>") once the export is completed. 409 export_not_ready while queued or running (the body carries export_status), 409 export_failed if it failed, 410 export_expired once its file was deleted. Another tenant\'s export is 404.',
        plugins: { rampart: { errors: [409, 410] } },
        validate: { params: exportIdParams, query: Joi.object({}) },
        response: { status: { 200: true } },
      },
      handler: async (request, h) => {
        const file = await service.download(callerOf(request).tenantId, (request.params as { id: string }).id);
        return fileResponse(h, file.stream, file.contentType, file.fileName, file.sizeBytes);
      },
    },
  ];
}
