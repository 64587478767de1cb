import type { ActionVersion } from '../actions/action-version.ts';
import { replacePlaceholders } from '../actions/template-placeholders.ts';
import type { NewExecution } from './execution-rows.ts';
import type { ApprovalRequestInput } from './run-ports.ts';

/** The action's approver list, or null (anyone holding a decide scope) when it names nobody. */
export function approversOf(a: { scopes?: string[]; user_ids?: string[] } | undefined | null): { scopes?: string[]; user_ids?: string[] } | null {
  if (!a || (!a.scopes?.length && !a.user_ids?.length)) return null;
  return { ...(a.scopes?.length ? { scopes: a.scopes } : {}), ...(a.user_ids?.length ? { user_ids: a.user_ids } : {}) };
}

/**
 * The question approvers read: the action's `message` template filled with the run's
 * parameters (the registration allows only declared parameter names in it). A secret
 * parameter shows as `********` (the message is stored, listed and sent in events), an
 * optional one the run did not give as `(not given)`; without a template, a sentence
 * naming the action.
 */
export function approvalMessage(action: ActionVersion, parameters: Record<string, unknown>, secretParams: Iterable<string>): string {
  const template = (action.config as { message?: string }).message;
  if (!template) return `Approve running ${action.name}`;
  const secret = new Set(secretParams);
  return replacePlaceholders(template, (name) => {
    if (secret.has(name)) return '********';
    const value = parameters[name];
    if (value === undefined || value === null) return '(not given)';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The approval request an approval action's run waits on, from the action's config. */
export function approvalRequestFor(who: { tenantId: string; userId: string | null; tokenId: string | null }, action: ActionVersion, run: Pick<NewExecution, 'id' | 'parameters' | 'secretRefs' | 'target' | 'sandbox'>): ApprovalRequestInput {
  const c = action.config as { required_approvals?: number; approvers?: { scopes?: string[]; user_ids?: string[] }; expires_in_seconds?: number; on_expiry?: 'fail' | 'approve' | 'deny' };
  return {
    tenantId: who.tenantId,
    subject: { kind: 'action_execution', id: run.id },
    message: approvalMessage(action, run.parameters, Object.keys(run.secretRefs)),
    details: { action_id: action.actionId, action_name: action.name, parameters: run.parameters, target: run.target, sandbox: run.sandbox },
    requiredApprovals: c.required_approvals ?? 1,
    allowed: approversOf(c.approvers),
    expiresInSeconds: c.expires_in_seconds ?? 86400,
    onExpiry: c.on_expiry ?? 'fail',
    requestedBy: { userId: who.userId, tokenId: who.tokenId },
  };
}
