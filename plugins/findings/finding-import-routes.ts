import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import type { FindingInput } from '../../core/findings/finding-input.ts';
import { actorOf } from './finding-routes.ts';
import { bulkFindingsPayload, createFindingPayload, findingRecordSchema } from './finding-schemas.ts';

const write = { access: { scope: ['findings:write'] } };
const tags = ['api', 'findings'];

const RULES =
  'The CVSS v3.1 vector is parsed strictly (400 invalid_cvss_vector for a malformed one) and gives `cvss` and `severity` (the spec\'s bands; 0.0 is info); a `severity` sent along must agree (400 severity_mismatch). ' +
  'The asset must belong to the caller\'s tenant (400 unknown_asset); a `scan_id`, if given, must name one of the tenant\'s scans of that asset (404 not_found, details naming the field). Emits finding.new {finding_id, title, severity, cvss, asset {id, name, type}, scan_id} per finding and updates the asset\'s risk_score in the same transaction.';

/** Findings without a scan: import results of other tools. */
export function findingImportRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.findings;
  const maxItems = ctx.config.findings.bulk.maxItems;
  return [
    {
      method: 'POST',
      path: '/api/findings',
      options: {
        auth: write,
        tags,
        description: 'Create one finding (import, no scan needed)',
        notes: `${RULES} Answers 201 with the stored finding (list fields plus cvss_vector, evidence, tags).`,
        validate: { payload: createFindingPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(findingRecordSchema, 'CreatedFindingResponse') } },
      },
      handler: async (request, h) => {
        const [created] = await service.create(callerOf(request).tenantId, actorOf(request), [request.payload as FindingInput], false);
        return h.response({ data: created }).code(201);
      },
    },
    {
      method: 'POST',
      path: '/api/findings/bulk',
      options: {
        auth: write,
        tags,
        description: 'Create many findings at once',
        notes: `Body {"findings": [...]} with 1-${maxItems} items (configurable, findings.bulk.maxItems), each as POST /api/findings. All or nothing: one invalid item is a 400 (404 for an unknown scan_id) whose details name it (e.g. findings.3.cvss_vector) and nothing is written. ${RULES}`,
        payload: { maxBytes: 32 * 1024 * 1024 },
        validate: { payload: bulkFindingsPayload(maxItems), query: Joi.object({}) },
        response: { status: { 201: dataOf(Joi.object({ created: Joi.number().integer().min(1).required(), findings: Joi.array().items(findingRecordSchema).required() }).label('CreatedFindings'), 'CreatedFindingsResponse') } },
      },
      handler: async (request, h) => {
        const { findings } = request.payload as { findings: FindingInput[] };
        const created = await service.create(callerOf(request).tenantId, actorOf(request), findings, true);
        return h.response({ data: { created: created.length, findings: created } }).code(201);
      },
    },
  ];
}
