import { toIso, toIsoRequired } from '../time.ts';
import { approvalsCount, type AllowedDeciders, type ApprovalRequest, type ApprovalStatus, type ResolvedBy } from './approval-types.ts';

export interface ApprovalDecisionView {
  decision: 'approve' | 'deny';
  comment: string | null;
  decided_by: { user_id: string | null; token_id: string };
  decided_at: string;
}

export interface ApprovalView {
  id: string;
  status: ApprovalStatus;
  subject: { kind: string; id: string };
  message: string;
  details: Record<string, unknown>;
  required_approvals: number;
  approvals_count: number;
  allowed: AllowedDeciders | null;
  requested_by: { user_id: string | null; token_id: string | null };
  expires_at: string;
  on_expiry: string;
  resolved_by: ResolvedBy | null;
  cancel_reason: string | null;
  decisions: ApprovalDecisionView[];
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The API view of a request, the same in the list and alone: every decision is part of it (the audit trail). */
export function approvalView(r: ApprovalRequest): ApprovalView {
  return {
    id: r.id,
    status: r.status,
    subject: { kind: r.subject.kind, id: r.subject.id },
    message: r.message,
    details: r.details,
    required_approvals: r.requiredApprovals,
    approvals_count: approvalsCount(r),
    allowed: r.allowed,
    requested_by: { user_id: r.requestedBy.userId, token_id: r.requestedBy.tokenId },
    expires_at: toIsoRequired(r.expiresAt),
    on_expiry: r.onExpiry,
    resolved_by: r.resolvedBy,
    cancel_reason: r.cancelReason,
    decisions: r.decisions.map((d) => ({
      decision: d.decision,
      comment: d.comment,
      decided_by: { user_id: d.deciderUserId, token_id: d.deciderTokenId },
      decided_at: toIsoRequired(d.createdAt),
    })),
    resolved_at: toIso(r.resolvedAt),
    created_at: toIsoRequired(r.createdAt),
    updated_at: toIsoRequired(r.updatedAt),
  };
}
