import type { Db, Queryable } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { claimToken } from '../work/instance-id.ts';
import { APPROVAL_LIMITS, checkComment, checkNewRequest } from './approval-input.ts';
import { approvalRepository, type ResolveChanges } from './approval-repository.ts';
import type {
  ApprovalPrincipal, ApprovalRequest, ApprovalStatus, Decision, ExpiryOutcome, NewApprovalRequest, ResolutionHandler,
} from './approval-types.ts';

export interface ApprovalServiceOptions {
  /** The clock expiry, leases and timestamps are judged by (tests inject one). */
  now?: () => number;
  /** How long a handler call holds the request before the sweeper may call it again (default 5 min). */
  handlerLeaseMs?: number;
  /** After a handler failed, or no handler is registered for the kind, try again this much later (default 30 s). */
  retryDelayMs?: number;
}

export interface ApprovalFilters {
  status?: ApprovalStatus;
  subjectKind?: string;
  subjectId?: string;
}

const EXPIRED_STATUS: Record<ExpiryOutcome, Exclude<ApprovalStatus, 'pending'>> = { fail: 'expired', approve: 'approved', deny: 'denied' };

type DecideOutcome = 'recorded' | 'resolved' | 'expired' | 'closed';

/**
 * Approval requests: one resource for every kind of subject that waits on people (an
 * approval action's execution, a paused playbook run). A request leaves `pending` exactly
 * once (decision, expiry or cancel): the flip is a conditional update, so racing callers
 * cannot both win. The winner calls the subject's handler (`onResolved`) right after the
 * commit, holding a lease on the row; if the process dies first, the sweeper
 * (approval-sweeper.ts) calls it once the lease lapses. Handlers run at least once.
 */
export class ApprovalService {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #retryMs: number;
  readonly #handlers = new Map<string, ResolutionHandler>();

  constructor(db: Db, logger: Logger, options: ApprovalServiceOptions = {}) {
    this.#db = db;
    this.#logger = logger;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.handlerLeaseMs ?? 5 * 60_000;
    this.#retryMs = options.retryDelayMs ?? 30_000;
  }

  /** Registers the owner of a subject kind: `handler` is called with each of its resolved requests. One handler per kind. */
  onResolved(kind: string, handler: ResolutionHandler): void {
    if (this.#handlers.has(kind)) throw new Error(`an approval handler for "${kind}" is already registered`);
    this.#handlers.set(kind, handler);
  }

  /**
   * Opens a pending request. Pass the caller's transaction (`db`) to create it atomically
   * with the subject (the execution, the paused run). 400 `validation_failed` for bad input.
   */
  async request(input: NewApprovalRequest, db: Queryable = this.#db): Promise<ApprovalRequest> {
    const allowed = checkNewRequest(input);
    const now = this.#now();
    const record = {
      id: newId('apr', now), tenantId: input.tenantId, subject: { kind: input.subject.kind, id: input.subject.id }, message: input.message,
      details: input.details ?? {}, requiredApprovals: input.requiredApprovals, allowed,
      requestedBy: { userId: input.requestedBy.userId ?? null, tokenId: input.requestedBy.tokenId ?? null }, onExpiry: input.onExpiry,
      expiresAt: now + input.expiresInSeconds * 1000, createdAt: now,
    };
    await approvalRepository.insert(db, record);
    return { ...record, status: 'pending', resolvedBy: null, cancelReason: null, resolvedAt: null, resolutionHandledAt: null, updatedAt: now, decisions: [] };
  }

  /** 404 for an unknown id or another tenant's request. */
  async get(tenantId: string, id: string): Promise<ApprovalRequest> {
    const found = await approvalRepository.find(this.#db, tenantId, id);
    if (!found) throw new NotFoundError('Approval request');
    return found;
  }

  /** Newest first. */
  async list(tenantId: string, filters: ApprovalFilters, page: PageRequest): Promise<Page<ApprovalRequest>> {
    return approvalRepository.list(this.#db, tenantId, filters, page);
  }

  /**
   * Records one person's decision and resolves the request when it is decisive: a deny at
   * once, an approve when the distinct approvers reach `required_approvals`. Checks, in
   * order: 404, 409 `approval_resolved`, 403 `not_allowed_to_decide`, 403 `self_approval`,
   * 409 `already_decided`. Answers the request as it is after the decision.
   */
  async decide(principal: ApprovalPrincipal, id: string, decision: Decision, comment?: string | null): Promise<ApprovalRequest> {
    const text = checkComment(comment);
    const leaseToken = claimToken('apr');
    const outcome = await retryOnDeadlock(() => this.#db.transaction(async (trx): Promise<DecideOutcome> => {
      const now = this.#now();
      // Locks the row on MariaDB: the deciders of one request take turns, so each counts the others' decisions.
      const req = await approvalRepository.find(trx, principal.tenantId, id, true);
      if (!req) throw new NotFoundError('Approval request');
      if (req.status !== 'pending') return 'closed';
      if (req.expiresAt <= now) {
        // Past its expiry but not swept yet: it resolves by expiry now, never by a late decision.
        return (await approvalRepository.resolve(trx, id, this.#changes(EXPIRED_STATUS[req.onExpiry], 'expiry', now, leaseToken))) ? 'expired' : 'closed';
      }
      this.#checkDecider(principal, req);
      try {
        await approvalRepository.insertDecision(trx, {
          id: newId('apd', now), requestId: id, tenantId: principal.tenantId, deciderKey: principal.userId ?? principal.tokenId,
          actor: { userId: principal.userId, tokenId: principal.tokenId }, decision, comment: text, now,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError('You have already decided on this approval request.', 'already_decided');
        throw err;
      }
      await approvalRepository.touch(trx, id, now);
      const decisive = decision === 'deny' || (await approvalRepository.countApprovals(trx, id, true)) >= req.requiredApprovals;
      if (!decisive) return 'recorded';
      const status = decision === 'deny' ? 'denied' : 'approved';
      return (await approvalRepository.resolve(trx, id, this.#changes(status, 'decision', now, leaseToken))) ? 'resolved' : 'recorded';
    }));
    if (outcome === 'resolved' || outcome === 'expired') await this.#dispatch(id, leaseToken);
    const after = await this.get(principal.tenantId, id);
    if (outcome === 'closed' || outcome === 'expired') {
      throw new ConflictError(`This approval request is already ${after.status}.`, 'approval_resolved', { approval_status: after.status });
    }
    return after;
  }

  /**
   * The subject was cancelled: a pending request becomes `cancelled` (and its handler is
   * called like for any resolution). `cancelled` is false when it had already resolved.
   */
  async cancel(tenantId: string, id: string, reason: string): Promise<{ cancelled: boolean; request: ApprovalRequest }> {
    await this.get(tenantId, id);
    const leaseToken = claimToken('apr');
    const changes = { ...this.#changes('cancelled', 'cancel', this.#now(), leaseToken), cancelReason: String(reason).slice(0, APPROVAL_LIMITS.cancelReasonChars) };
    const cancelled = await approvalRepository.resolve(this.#db, id, changes);
    if (cancelled) await this.#dispatch(id, leaseToken);
    return { cancelled, request: await this.get(tenantId, id) };
  }

  /**
   * One sweeper round: expires the overdue pending requests it claims and calls the handler
   * of every claimed request whose resolution was not handled (a crash, a failed handler).
   * Returns how many rows it claimed.
   */
  async sweep(token: string, limit = 50): Promise<number> {
    const now = this.#now();
    const ids = await approvalRepository.claimDue(this.#db, token, now, this.#leaseMs, limit);
    for (const id of ids) {
      const req = await approvalRepository.find(this.#db, null, id);
      if (!req) continue;
      if (req.status === 'pending') {
        if (req.expiresAt > now) {
          await approvalRepository.release(this.#db, id, token);
          continue;
        }
        // A decision may have resolved it since the claim: then its own caller dispatches.
        const expired = await approvalRepository.resolve(this.#db, id, this.#changes(EXPIRED_STATUS[req.onExpiry], 'expiry', now, token), token);
        if (!expired) continue;
      }
      await this.#dispatch(id, token);
    }
    return ids.length;
  }

  #changes(status: ResolveChanges['status'], resolvedBy: ResolveChanges['resolvedBy'], now: number, leaseToken: string): ResolveChanges {
    return { status, resolvedBy, now, leaseToken, leaseUntil: now + this.#leaseMs };
  }

  #checkDecider(p: ApprovalPrincipal, req: ApprovalRequest): void {
    const allowed = req.allowed;
    if (allowed) {
      const byScope = allowed.scopes?.some((s) => p.scope.includes(s)) ?? false;
      const byUser = p.userId !== null && (allowed.user_ids?.includes(p.userId) ?? false);
      if (!byScope && !byUser) throw new ForbiddenError('You are not among the people allowed to decide this approval request.', 'not_allowed_to_decide');
    }
    const by = req.requestedBy;
    const self = (by.tokenId !== null && by.tokenId === p.tokenId) || (by.userId !== null && by.userId === p.userId);
    if (self) throw new ForbiddenError('The requester cannot decide their own approval request.', 'self_approval');
  }

  /** Calls the subject's handler while `token` holds the row; marks the resolution handled, or schedules a retry. */
  async #dispatch(id: string, token: string): Promise<void> {
    const req = await approvalRepository.find(this.#db, null, id);
    if (!req) return;
    // Not ours to handle (still pending) or handled already: let the lease go, keep the row as it is.
    if (req.status === 'pending') return void (await approvalRepository.release(this.#db, id, token));
    // A decision may have resolved the row after the sweeper claimed it: the resolver took the lease and calls the handler itself.
    if (!(await approvalRepository.holds(this.#db, id, token))) return;
    if (req.resolutionHandledAt !== null) return void (await approvalRepository.settle(this.#db, id, token));
    const handler = this.#handlers.get(req.subject.kind);
    try {
      if (!handler) throw new Error(`no handler registered for subject kind "${req.subject.kind}"`);
      await handler(req);
    } catch (err) {
      this.#logger.error({ err: { message: errorMessage(err) }, approval_id: id, subject_kind: req.subject.kind }, 'approval resolution handler failed; will retry');
      await approvalRepository.retryLater(this.#db, id, token, this.#now() + this.#retryMs).catch(() => {});
      return;
    }
    await approvalRepository.markHandled(this.#db, id, token, this.#now());
  }
}
