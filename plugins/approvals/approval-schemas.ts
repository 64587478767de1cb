import Joi from 'joi';
import { APPROVAL_LIMITS } from '../../core/approvals/approval-input.ts';
import { APPROVAL_STATUSES, EXPIRY_OUTCOMES } from '../../core/approvals/approval-types.ts';
import { recordId } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';

const iso = Joi.string().isoDate();

export const approvalIdParams = Joi.object({
  id: recordId('apr', 'an approval request id').required(),
});

export const approvalListQuery = Joi.object({
  ...pageQuery,
  status: Joi.string().valid(...APPROVAL_STATUSES).description('Only requests in this status (e.g. `pending`: what waits for a decision).'),
  subject_kind: Joi.string().pattern(/^[a-z][a-z0-9_]{0,39}$/).description('Only requests about this kind of subject: `action_execution`, `playbook_run`.'),
  subject_id: Joi.string().max(64).description('Only requests about this subject (an execution id, a playbook run id).'),
});

export const decisionPayload = Joi.object({
  comment: Joi.string().max(APPROVAL_LIMITS.commentChars).allow('').description(`Why, for the audit trail; at most ${APPROVAL_LIMITS.commentChars} characters.`),
})
  .allow(null)
  .label('ApprovalDecisionInput');

const actor = Joi.object({
  user_id: Joi.string().allow(null).required(),
  token_id: Joi.string().allow(null).required(),
});

const decisionSchema = Joi.object({
  decision: Joi.string().valid('approve', 'deny').required(),
  comment: Joi.string().allow('', null).required(),
  decided_by: actor.label('ApprovalDecider').required(),
  decided_at: iso.required(),
}).label('ApprovalDecision');

export const approvalSchema = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid(...APPROVAL_STATUSES).required(),
  subject: Joi.object({ kind: Joi.string().required(), id: Joi.string().required() }).label('ApprovalSubject').required(),
  message: Joi.string().required(),
  details: Joi.object().unknown(true).required(),
  required_approvals: Joi.number().integer().min(1).required(),
  approvals_count: Joi.number().integer().min(0).required(),
  allowed: Joi.object({ scopes: Joi.array().items(Joi.string()), user_ids: Joi.array().items(Joi.string()) }).label('ApprovalAllowed').allow(null).required()
    .description('Who may decide besides holding a decide scope: a listed scope or a listed user. null: anyone of the tenant with `actions:execute` or `playbooks:run`.'),
  requested_by: actor.label('ApprovalRequester').required().description('token_id null: the system asked (an event-triggered run).'),
  expires_at: iso.required(),
  on_expiry: Joi.string().valid(...EXPIRY_OUTCOMES).required(),
  resolved_by: Joi.string().valid('decision', 'expiry', 'cancel').allow(null).required(),
  cancel_reason: Joi.string().allow(null).required(),
  decisions: Joi.array().items(decisionSchema).required(),
  resolved_at: iso.allow(null).required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('ApprovalRequest');
