import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import type { ApprovalStatus, Decision } from '../../core/approvals/approval-types.ts';
import { approvalView } from '../../core/approvals/approval-views.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import { approvalIdParams, approvalListQuery, approvalSchema, decisionPayload } from './approval-schemas.ts';

// hapi reads a scope list as "any of": approvals serve both actions and playbooks.
const readAuth = { access: { scope: ['actions:read', 'playbooks:read'] } };
const decideAuth = { access: { scope: ['actions:execute', 'playbooks:run'] } };
const tags = ['api', 'approvals'];

export function approvalRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.approvals;
  const decideRoute = (decision: Decision, path: string, description: string, notes: string): ServerRoute => ({
    method: 'POST',
    path,
    options: {
      auth: decideAuth,
      tags,
      description,
      notes,
      validate: { params: approvalIdParams, payload: decisionPayload, query: Joi.object({}) },
      response: { status: { 200: dataOf(approvalSchema, 'ApprovalResponse') } },
    },
    handler: async (request) => {
      const body = (request.payload ?? {}) as { comment?: string };
      return { data: approvalView(await service.decide(callerOf(request), String(request.params.id), decision, body.comment)) };
    },
  });
  const rules = 'Needs `actions:execute` or `playbooks:run`, and, when the request has an `allowed` list, one of its scopes or user ids. 403 `self_approval` for the requester (same user, or same token without a user), 403 `not_allowed_to_decide`, 409 `already_decided` for a second decision by the same person (a user deciding through another token included), 409 `approval_resolved` (with `approval_status`) once the request left `pending`, also when it is past `expires_at` and not yet swept.';
  return [
    {
      method: 'GET',
      path: '/api/approvals',
      options: {
        auth: readAuth,
        tags,
        description: 'List approval requests',
        notes: 'Newest first, each with its decisions. `?status=pending` is the queue of what waits for a decision. Needs `actions:read` or `playbooks:read`.',
        validate: { query: approvalListQuery },
        response: { status: { 200: listOf(approvalSchema, 'ApprovalList') } },
      },
      handler: async (request) => {
        const q = request.query as { page: number; per_page: number; status?: ApprovalStatus; subject_kind?: string; subject_id?: string };
        const result = await service.list(callerOf(request).tenantId, { status: q.status, subjectKind: q.subject_kind, subjectId: q.subject_id }, { page: q.page, perPage: q.per_page });
        return { data: result.rows.map(approvalView), meta: listMeta(result.total, q.page, q.per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/approvals/{id}',
      options: {
        auth: readAuth,
        tags,
        description: 'Get an approval request',
        notes: 'With every decision (who, when, comment): the audit trail. Needs `actions:read` or `playbooks:read`.',
        validate: { params: approvalIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(approvalSchema, 'ApprovalResponse') } },
      },
      handler: async (request) => ({ data: approvalView(await service.get(callerOf(request).tenantId, String(request.params.id))) }),
    },
    decideRoute('approve', '/api/approvals/{id}/approve', 'Approve an approval request',
      `Records the approval; the request becomes \`approved\` when \`required_approvals\` distinct people approved. Answers the request after the decision. ${rules}`),
    decideRoute('deny', '/api/approvals/{id}/deny', 'Deny an approval request',
      `One deny resolves the request \`denied\` at once. Answers the request after the decision. ${rules}`),
  ];
}
