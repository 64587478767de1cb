import type { ActionVersion } from '../actions/action-version.ts';
import type { Db } from '../db/create-db.ts';
import type { PageRequest } from '../db/paginate.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import type { Outbox } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import type { ExecutorAsset } from '../plugin-api/index.ts';
import { approvalRequestFor } from './approval-request.ts';
import { dryRun } from './dry-run.ts';
import { executionRepository } from './execution-repository.ts';
import type { NewExecution, Requester } from './execution-rows.ts';
import { toExecutionView, type ExecutionView } from './execution-views.ts';
import type { AttemptDeps } from './run-attempt.ts';
import type { ApprovalPort, CatalogPort } from './run-ports.ts';

export interface TriggerRequest {
  target?: string | null;
  parameters: Record<string, unknown>;
  sandbox?: boolean;
  dry_run?: boolean;
}

/** Who starts a run: a caller of the API, or (tokenId null) the platform on a playbook's behalf. */
export interface Principal {
  tenantId: string;
  userId: string | null;
  tokenId: string | null;
}

export interface TriggerOptions {
  /**
   * Makes the trigger idempotent: when a run with this id exists it is returned and
   * nothing new is queued (a playbook step derives it from its own id, so a worker that
   * crashed after triggering and triggers again never starts a second run).
   */
  executionId?: string;
  /** Runs this registered version instead of the active one (`name@1.2.0` references). */
  version?: string;
}

export interface TriggerResult {
  execution: ExecutionView;
  /** The dry run's plan (also kept in the record's output). */
  plan?: Record<string, unknown>;
}

export interface ExecutionServiceDeps extends AttemptDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  catalog: CatalogPort;
  approvals?: ApprovalPort;
  asset(tenantId: string, id: string): Promise<ExecutorAsset | null>;
  /** Wakes the run worker when a run is queued. */
  wake(): void;
  clock?: () => number;
}

/**
 * Starts action runs and answers questions about them. A trigger checks everything a
 * run needs before anything is written (the action is usable, the parameters are
 * valid, the target exists, every credential is there), then queues the run with its
 * action.triggered event in one transaction. Dry runs are answered at once and queue
 * nothing; approval actions wait for their approval request instead of a worker.
 */
export class ExecutionService {
  constructor(private readonly deps: ExecutionServiceDeps) {}

  #now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  async trigger(who: Principal, actionId: string, req: TriggerRequest, parent: { kind: string; id: string } | null = null, options: TriggerOptions = {}): Promise<TriggerResult> {
    const { deps } = this;
    if (options.executionId) {
      const existing = await executionRepository.get(deps.db, who.tenantId, options.executionId);
      if (existing) return { execution: await this.get(who.tenantId, existing.id) };
    }
    const action = await this.#action(who.tenantId, actionId, options.version);
    const sandbox = req.sandbox === true;
    if (!action.enabled && !sandbox) {
      throw new ConflictError(`Action ${action.name} is a disabled definition: enable it (PATCH /api/actions/definitions/{id}) or run it with sandbox: true.`, 'action_disabled');
    }
    const { validated, asset, secrets } = await this.#check(who, action, req, sandbox);
    const now = this.#now();
    const base: NewExecution = {
      id: options.executionId ?? newId('exe', now),
      tenantId: who.tenantId,
      actionId: action.actionId,
      actionVersionId: action.versionId,
      actionName: action.name,
      actionVersion: action.version,
      status: 'pending',
      waitReason: null,
      approvalId: null,
      target: asset?.id ?? null,
      parameters: validated.values,
      secretRefs: validated.secrets,
      snapshot: action,
      output: null,
      error: null,
      sandbox,
      dryRun: false,
      attempt: 0,
      maxAttempts: action.retry.maxAttempts,
      requestedBy: { user_id: who.userId, token_id: who.tokenId } satisfies Requester,
      parent,
      startedAt: null,
      completedAt: null,
      now,
    };
    if (req.dry_run === true) return this.#dryRun(base, action, validated.values, validated.secrets, secrets, asset);
    const approval = action.type === 'approval';
    if (approval && !deps.approvals) throw new ConflictError('Approvals are not available in this server.', 'approvals_unavailable');
    try {
      await this.#queue(who, action, base, approval, sandbox);
    } catch (err) {
      // The same idempotent trigger raced us and won: its run is the one.
      if (options.executionId && isUniqueViolation(err)) return { execution: await this.get(who.tenantId, options.executionId) };
      throw err;
    }
    if (!approval) deps.wake();
    return { execution: await this.get(who.tenantId, base.id) };
  }

  /** What every run needs before anything is written: valid parameters, the target, every credential (a 400 naming a missing one now, not later in the worker). */
  async #check(who: Principal, action: ActionVersion, req: Omit<TriggerRequest, 'dry_run'>, sandbox: boolean) {
    const validated = this.deps.catalog.validateParameters(action.parameters, req.parameters ?? {});
    let asset: ExecutorAsset | null = null;
    if (req.target) {
      asset = await this.deps.asset(who.tenantId, req.target);
      if (!asset) throw new NotFoundError('Target asset');
    }
    const secrets = await this.deps.credentials.resolve(who.tenantId, [...new Set(Object.values(validated.secrets))], { sandbox });
    return { validated, asset, secrets };
  }

  async #action(tenantId: string, actionId: string, version?: string): Promise<ActionVersion> {
    return version ? this.deps.catalog.forRunByVersion(tenantId, actionId, version) : this.deps.catalog.forRun(tenantId, actionId);
  }

  async #queue(who: Principal, action: ActionVersion, base: NewExecution, approval: boolean, sandbox: boolean): Promise<void> {
    const { deps } = this;
    await retryOnDeadlock(() => deps.outbox.transaction(async (uow) => {
      let approvalId: string | null = null;
      if (approval) approvalId = (await deps.approvals!.request(approvalRequestFor(who, action, base), uow.trx)).id;
      await executionRepository.insert(uow.trx, { ...base, waitReason: approval ? 'approval' : null, approvalId });
      await uow.emit({
        tenantId: who.tenantId,
        kind: 'action.triggered',
        data: { action_id: action.actionId, execution_id: base.id, action_name: action.name, status: 'pending', target: base.target, sandbox },
      });
    }));
  }

  /**
   * A dry run that stores nothing (playbook dry runs): the same checks as a trigger, then
   * the executor's plan with every secret masked.
   */
  async plan(who: Principal, actionId: string, req: Omit<TriggerRequest, 'dry_run'>, options: Pick<TriggerOptions, 'version'> = {}): Promise<{ status: 'completed' | 'failed'; plan: Record<string, unknown>; error: { code: string; message: string } | null; action: { id: string; name: string; version: string } }> {
    const action = await this.#action(who.tenantId, actionId, options.version);
    const sandbox = req.sandbox === true;
    const { validated, asset, secrets } = await this.#check(who, action, req, sandbox);
    const params: Record<string, unknown> = { ...validated.values };
    for (const [param, credential] of Object.entries(validated.secrets)) params[param] = secrets[credential];
    const result = await dryRun(
      { executionId: 'exe_plan', tenantId: who.tenantId, action, params, secretParams: Object.keys(validated.secrets), secretValues: Object.values(secrets), asset, sandbox },
      this.deps,
    );
    return { status: result.status, plan: result.plan, error: result.error, action: { id: action.actionId, name: action.name, version: action.version } };
  }

  async #dryRun(base: NewExecution, action: ActionVersion, values: Record<string, unknown>, refs: Record<string, string>, secrets: Record<string, string>, asset: ExecutorAsset | null): Promise<TriggerResult> {
    const params: Record<string, unknown> = { ...values };
    for (const [param, credential] of Object.entries(refs)) params[param] = secrets[credential];
    const result = await dryRun(
      { executionId: base.id, tenantId: base.tenantId, action, params, secretParams: Object.keys(refs), secretValues: Object.values(secrets), asset, sandbox: base.sandbox },
      this.deps,
    );
    const now = this.#now();
    await this.deps.db.transaction(async (trx) => {
      await executionRepository.insert(trx, {
        ...base,
        dryRun: true,
        status: result.status,
        output: { dry_run: true, plan: result.plan },
        error: result.error,
        startedAt: base.now,
        completedAt: now,
      });
      await executionRepository.appendLogs(trx, result.logs);
    });
    return { execution: await this.get(base.tenantId, base.id), plan: result.plan };
  }

  async get(tenantId: string, executionId: string, withLogs = true): Promise<ExecutionView> {
    const row = await executionRepository.get(this.deps.db, tenantId, executionId);
    if (!row) throw new NotFoundError('Execution');
    const logs = withLogs ? await executionRepository.logs(this.deps.db, [row.id], 10_000) : undefined;
    return toExecutionView(row, logs);
  }

  /** Executions of one action, newest first; with `withLogs` each carries its log lines (the run log view). */
  async list(tenantId: string, actionId: string, page: PageRequest, withLogs = false): Promise<{ data: ExecutionView[]; total: number }> {
    await this.deps.catalog.forRun(tenantId, actionId);
    const { rows, total } = await executionRepository.listForAction(this.deps.db, tenantId, actionId, page);
    if (!withLogs) return { data: rows.map((r) => toExecutionView(r)), total };
    const logs = await executionRepository.logs(this.deps.db, rows.map((r) => r.id), 500);
    return { data: rows.map((r) => toExecutionView(r, logs.filter((l) => l.execution_id === r.id))), total };
  }
}
