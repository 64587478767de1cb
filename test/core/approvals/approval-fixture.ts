import { ApprovalService } from '../../../core/approvals/approval-service.ts';
import { ApprovalSweeper } from '../../../core/approvals/approval-sweeper.ts';
import type { ApprovalPrincipal, ApprovalRequest, NewApprovalRequest } from '../../../core/approvals/approval-types.ts';
import { newId } from '../../../core/ids.ts';
import { createLogger } from '../../../core/logger.ts';
import type { TestApp } from '../../_helpers/harness/test-app.ts';

/**
 * An ApprovalService of its own on a test app's database, with a clock the test moves
 * and handlers that record every call (and fail on demand), plus a sweeper driven by hand.
 */
export interface ApprovalFixture {
  service: ApprovalService;
  sweeper: ApprovalSweeper;
  clock: { now: number };
  /** Handler calls per request id, with the status each saw. */
  calls: Map<string, string[]>;
  /** Request ids whose handler throws this many more times. */
  failures: Map<string, number>;
  /** Handler calls for `id` (0 if none). */
  callsOf(id: string): number;
}

export const RETRY_MS = 10_000;
export const LEASE_MS = 60_000;

export function approvalFixture(t0: TestApp, kinds = ['action_execution', 'playbook_run']): ApprovalFixture {
  const clock = { now: Date.now() };
  const service = new ApprovalService(t0.ctx.db, createLogger('silent'), { now: () => clock.now, retryDelayMs: RETRY_MS, handlerLeaseMs: LEASE_MS });
  const calls = new Map<string, string[]>();
  const failures = new Map<string, number>();
  for (const kind of kinds) {
    service.onResolved(kind, async (request: ApprovalRequest) => {
      calls.set(request.id, [...(calls.get(request.id) ?? []), request.status]);
      const left = failures.get(request.id) ?? 0;
      if (left > 0) {
        failures.set(request.id, left - 1);
        throw new Error('handler failed on purpose');
      }
    });
  }
  const sweeper = new ApprovalSweeper(service, createLogger('silent'));
  return { service, sweeper, clock, calls, failures, callsOf: (id) => calls.get(id)?.length ?? 0 };
}

/** A principal with made-up ids: the service only compares them. */
export function principal(tenantId: string, o: { user?: boolean; scope?: string[] } = {}): ApprovalPrincipal {
  return { tenantId, tokenId: newId('tok'), userId: o.user === false ? null : newId('usr'), scope: o.scope ?? ['actions:execute'] };
}

export function newRequest(tenantId: string, requester: ApprovalPrincipal | null, o: Partial<NewApprovalRequest> = {}): NewApprovalRequest {
  return {
    tenantId,
    subject: { kind: 'action_execution', id: newId('exe') },
    message: 'Block 203.0.113.9 at the edge firewall?',
    details: { action: 'block-ip', parameters: { ip: '203.0.113.9' } },
    requiredApprovals: 1,
    expiresInSeconds: 3600,
    onExpiry: 'fail',
    requestedBy: requester ? { userId: requester.userId, tokenId: requester.tokenId } : { userId: null, tokenId: null },
    ...o,
  };
}
