/**
 * The words of approvals, shared by the service, the repository, the views and the
 * subjects' owners (the action engine now, playbook runs later).
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What happens when nobody resolved the request in time: `fail` ends it `expired`. */
export const EXPIRY_OUTCOMES = ['fail', 'approve', 'deny'] as const;
export type ExpiryOutcome = (typeof EXPIRY_OUTCOMES)[number];

export type Decision = 'approve' | 'deny';
export type ResolvedBy = 'decision' | 'expiry' | 'cancel';

/** Well-known subject kinds; the set is open, so a new feature needs no change here. */
export type SubjectKind = 'action_execution' | 'playbook_run' | (string & {});

export interface ApprovalSubject {
  kind: SubjectKind;
  id: string;
}

/** Who may decide. null on the request: anyone of the tenant holding a decide scope. Both lists given: either admits. */
export interface AllowedDeciders {
  scopes?: string[];
  user_ids?: string[];
}

/** Who acted: the token always, its user when the token belongs to one. */
export interface Actor {
  userId: string | null;
  tokenId: string | null;
}

/** The caller of `decide`; an http `Caller` (core/http/auth-scheme.ts) fits as it is. */
export interface ApprovalPrincipal {
  tenantId: string;
  tokenId: string;
  userId: string | null;
  scope: readonly string[];
}

export interface ApprovalDecisionRecord {
  id: string;
  decision: Decision;
  comment: string | null;
  deciderUserId: string | null;
  deciderTokenId: string;
  createdAt: number;
}

export interface ApprovalRequest {
  id: string;
  tenantId: string;
  subject: ApprovalSubject;
  message: string;
  details: Record<string, unknown>;
  requiredApprovals: number;
  allowed: AllowedDeciders | null;
  requestedBy: Actor;
  status: ApprovalStatus;
  onExpiry: ExpiryOutcome;
  resolvedBy: ResolvedBy | null;
  cancelReason: string | null;
  expiresAt: number;
  resolvedAt: number | null;
  resolutionHandledAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Every decision, oldest first (the audit trail). */
  decisions: ApprovalDecisionRecord[];
}

export interface NewApprovalRequest {
  tenantId: string;
  subject: ApprovalSubject;
  message: string;
  details?: Record<string, unknown>;
  /** Distinct approvers needed, 1..10. */
  requiredApprovals: number;
  allowed?: AllowedDeciders | null;
  expiresInSeconds: number;
  onExpiry: ExpiryOutcome;
  /** tokenId null: the system asked (an event-triggered run), so nobody is barred as the requester. */
  requestedBy: Actor;
}

/**
 * Called once a request left `pending` (decision, expiry or cancel). Delivery is at least
 * once: after a crash between the resolution and the end of the handler, the sweeper calls
 * it again, so a handler must be idempotent (check the subject's state before changing it).
 */
export type ResolutionHandler = (request: ApprovalRequest) => Promise<void>;

export function approvalsCount(request: Pick<ApprovalRequest, 'decisions'>): number {
  return request.decisions.filter((d) => d.decision === 'approve').length;
}
