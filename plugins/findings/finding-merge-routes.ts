import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { ValidationError } from '../../core/errors.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { actorOf } from './finding-routes.ts';
import { findingIdParams, mergePayload, mergeResultSchema, splitPayload, splitResultSchema } from './finding-schemas.ts';

const write = { access: { scope: ['findings:write'] } };
const tags = ['api', 'findings'];

/** Manual merge and split of findings (docs/finding-fingerprints.md#merge-and-split). */
export function findingMergeRoutes(ctx: AppContext): ServerRoute[] {
  const merges = ctx.services.findings.merges;
  return [
    {
      method: 'POST',
      path: '/api/findings/{id}/merge',
      options: {
        auth: write,
        tags,
        description: 'Merge findings of the same asset into this one',
        notes: 'The findings listed in finding_ids are folded into the one in the path: their notes, status history and sources move to it, its fingerprint gains their keys (dedup.keys), they are deleted, and the kept finding records the merge (a note, dedup.merges). Its status does not change, so no finding.status_changed is emitted. 404 when a finding is not the caller\'s; 409 merge_across_assets when one is on another asset; nothing changes then. POST /api/findings/{id}/split undoes it.',
        validate: { params: findingIdParams, payload: mergePayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(mergeResultSchema, 'FindingMergeResponse') } },
      },
      handler: async (request) => {
        const { finding_ids: ids } = request.payload as { finding_ids: string[] };
        const id = String(request.params.id);
        if (ids.includes(id)) throw new ValidationError('A finding cannot be merged into itself.', [{ field: 'finding_ids', message: `${id} is the finding merged into.` }]);
        return { data: await merges.merge(callerOf(request).tenantId, id, ids, actorOf(request)) };
      },
    },
    {
      method: 'POST',
      path: '/api/findings/{id}/split',
      options: {
        auth: write,
        tags,
        description: 'Undo merges into this finding',
        notes: 'Restores the findings merged into this one (all, or those in finding_ids) as they were, with their notes, status history, sources and keys moved back; recorded as a note and in dedup.merges (split_at). No status changes. 409 not_merged when the finding has no merge to undo or a listed finding was not merged into it; nothing changes then.',
        validate: { params: findingIdParams, payload: splitPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(splitResultSchema, 'FindingSplitResponse') } },
      },
      handler: async (request) => {
        const body = request.payload as { finding_ids?: string[] } | null;
        return { data: await merges.split(callerOf(request).tenantId, String(request.params.id), body?.finding_ids, actorOf(request)) };
      },
    },
  ];
}
