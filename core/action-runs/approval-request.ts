import type { ActionVersion } from '../actions/action-version.ts';
import type { NewExecution } from './execution-rows.ts';
import type { ApprovalRequestInput } from './run-ports.ts';

/** The action's approver list, or null (anyone holding a decide scope) when it names nobody. */
export function approversOf(a: { scopes?: string[]; user_ids?: string[] } | undefined | null): { scopes?: string[]; user_ids?: string[] } | null {
  if (!a || (!a.scopes?.length && !a.user_ids?.length)) return null;
  return { ...(a.scopes?.length ? { scopes: a.scopes } : {}), ...(a.user_ids?.length ? { user_ids: a.user_ids } : {}) };
}

/** The approval request an approval action's run waits on, from the action's config. */
export function approvalRequestFor(who: { tenantId: string; userId: string | null; tokenId: string | null }, action: ActionVersion, run: Pick<NewExecution, 'id' | 'parameters' | 'target' | 'sandbox'>): ApprovalRequestInput {
  const c = action.config as { required_approvals?: number; approvers?: { scopes?: string[]; user_ids?: string[] }; expires_in_seconds?: number; on_expiry?: 'fail' | 'approve' | 'deny'; message?: string };
  return {
    tenantId: who.tenantId,
    subject: { kind: 'action_execution', id: run.id },
    message: c.message ?? `Approve running ${action.name}`,
    details: { action_id: action.actionId, action_name: action.name, parameters: run.parameters, target: run.target, sandbox: run.sandbox },
    requiredApprovals: c.required_approvals ?? 1,
    allowed: approversOf(c.approvers),
    expiresInSeconds: c.expires_in_seconds ?? 86400,
    onExpiry: c.on_expiry ?? 'fail',
    requestedBy: { userId: who.userId, tokenId: who.tokenId },
  };
}
