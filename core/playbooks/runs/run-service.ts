import type { Principal } from '../../action-runs/execution-service.ts';
import type { ExecutionRow } from '../../action-runs/execution-rows.ts';
import type { Db, Transaction } from '../../db/create-db.ts';
import type { PageRequest } from '../../db/paginate.ts';
import type { EventPayloads } from '../../domain/event-payloads.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Outbox, UnitOfWork } from '../../events/outbox.ts';
import { newId } from '../../ids.ts';
import type { PlaybookVersion } from '../playbook-types.ts';
import { planRun, type DryRunRequest, type DryRunResult } from './dry-run.ts';
import { eventAsset } from './run-context.ts';
import { finishRun } from './run-finish.ts';
import { runRepository } from './run-repository.ts';
import { FINAL_RUN_STATUSES, type NewRun, type TriggerEventRef } from './run-rows.ts';
import type { ActionPorts, AssetLookup, PlaybookSource } from './run-ports.ts';
import { toRunView, toStepView, type RunView, type StepView } from './run-views.ts';
import { cancelExecutions, startedData } from './run-worker.ts';

export interface RunRequest extends Omit<DryRunRequest, 'mocks'> {
  dry_run?: boolean;
  mocks?: DryRunRequest['mocks'];
}

export interface NewRunOptions {
  triggerEvent: TriggerEventRef | null;
  targetAssetId: string | null;
  parameters: Record<string, unknown>;
  depth: number;
  requestedBy: NewRun['requestedBy'];
  /** Started at once (a run by hand: running, with playbook.started) or queued for a worker (a triggered run: pending). */
  start: boolean;
}

export interface PlaybookRunServiceDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  playbooks: PlaybookSource;
  ports: ActionPorts;
  asset: AssetLookup;
  /** Wakes the run worker (a run was created or asked to cancel). */
  wake(): void;
  now(): number;
  /** How long a cancel waits for a worker that holds the run to let it go. */
  cancelWaitMs: number;
}

/**
 * Starts playbook runs (by hand, or for a trigger), answers questions about them and
 * cancels them. Runs by hand start at once (`running`, playbook.started in the same
 * transaction, as the spec's state table says); triggered runs are queued `pending`
 * and start when a worker claims them. Dry runs store nothing (core/playbooks/runs/dry-run.ts).
 */
export class PlaybookRunService {
  constructor(private readonly deps: PlaybookRunServiceDeps) {}

  async run(who: Principal, playbookId: string, req: RunRequest): Promise<{ run: RunView } | { plan: DryRunResult }> {
    const version = await this.deps.playbooks.forRun(who.tenantId, playbookId);
    undeclaredParameters(version, req.parameters ?? {});
    if (req.dry_run === true) {
      const asset = req.target_asset_id ? await this.#asset(who.tenantId, req.target_asset_id) : null;
      return { plan: await planRun(this.deps.ports, who, version, req, asset) };
    }
    if (!version.enabled) throw new ConflictError(`Playbook ${version.name} is disabled: enable it (PATCH /api/playbooks/{id}) or run it with dry_run: true.`, 'playbook_disabled');
    if (req.target_asset_id) await this.#asset(who.tenantId, req.target_asset_id);
    const event = req.event ? { id: null, kind: req.event.kind, data: req.event.data ?? {} } : null;
    const id = await this.create(version, { triggerEvent: event, targetAssetId: req.target_asset_id ?? null, parameters: req.parameters ?? {}, depth: 0, requestedBy: { user_id: who.userId, token_id: who.tokenId }, start: true });
    return { run: await this.get(who.tenantId, id!) };
  }

  /**
   * Creates a run of this version; returns its id, or null when the trigger event already
   * has a run of this playbook (the unique key: one run per playbook per event). Inside
   * `uow` when given (the trigger consumer), else in its own transaction.
   */
  async create(version: PlaybookVersion, o: NewRunOptions, uow?: UnitOfWork<EventPayloads>): Promise<string | null> {
    const now = this.deps.now();
    const targetAssetId = o.targetAssetId ?? assetIdOf(o.triggerEvent);
    const found = targetAssetId ? await this.deps.asset(version.tenantId, targetAssetId) : null;
    const asset = found ?? eventAsset(o.triggerEvent?.data);
    const { playbookId, tenantId, versionId, enabled: _e, ...definition } = version;
    const row: NewRun = {
      id: newId('pbx', now),
      tenantId,
      playbookId,
      versionId,
      playbookName: version.name,
      snapshot: definition,
      triggerEvent: o.triggerEvent,
      targetAssetId: found ? targetAssetId : null,
      asset,
      parameters: { ...version.parameters, ...o.parameters },
      depth: o.depth,
      stepsTotal: version.steps.length,
      requestedBy: o.requestedBy,
      ...(o.start ? { start: { at: now, deadline: now + version.timeout_minutes * 60_000 } } : {}),
      now,
    };
    const write = async (u: UnitOfWork<EventPayloads>) => {
      if (!(await runRepository.insert(u.trx, row))) return null;
      if (o.start) {
        const created = (await runRepository.getAny(u.trx, row.id))!;
        await u.emit({ tenantId, kind: 'playbook.started', data: startedData(created) });
      }
      return row.id;
    };
    const id = uow ? await write(uow) : await this.deps.outbox.transaction(write);
    if (id && !uow) this.deps.wake();
    return id;
  }

  async get(tenantId: string, id: string): Promise<RunView> {
    return toRunView(await this.#row(tenantId, id));
  }

  async steps(tenantId: string, id: string): Promise<StepView[]> {
    await this.#row(tenantId, id);
    return (await runRepository.steps(this.deps.db, id)).map(toStepView);
  }

  async list(tenantId: string, playbookId: string, page: PageRequest): Promise<{ data: RunView[]; total: number }> {
    await this.deps.playbooks.forRun(tenantId, playbookId);
    const { rows, total } = await runRepository.listForPlaybook(this.deps.db, tenantId, playbookId, page);
    return { data: rows.map(toRunView), total };
  }

  /**
   * Cancels a live run: at once when no worker holds it (its running step actions are
   * cancelled after), else the holder sees `cancel_requested` and ends it; waits briefly
   * for that. 409 `execution_finished` when the run has already ended.
   */
  async cancel(tenantId: string, id: string): Promise<RunView> {
    const row = await this.#row(tenantId, id);
    if (FINAL_RUN_STATUSES.includes(row.status)) throw new ConflictError(`The playbook execution has already ended (${row.status}).`, 'execution_finished', { status: row.status });
    await this.#cancelApprovalSteps(tenantId, id);
    const now = this.deps.now();
    await runRepository.wake(this.deps.db, id, now, { cancel_requested: true });
    const live = await finishRun(this.deps.outbox, row, { free: true }, { status: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled.' } }, now);
    if (live) await cancelExecutions(this.deps.ports, tenantId, live);
    else {
      this.deps.wake();
      const until = Date.now() + this.deps.cancelWaitMs;
      while (Date.now() < until && !FINAL_RUN_STATUSES.includes((await this.#row(tenantId, id)).status)) await new Promise((r) => setTimeout(r, 25));
    }
    return this.get(tenantId, id);
  }

  /**
   * A run paused on an approval step: the step's request decides (issue 25). Cancelling the
   * step's action cancels the request first (the advance then ends the run cancelled, nothing
   * after the step starts); a request decided first is followed and the cancel is a 409.
   */
  async #cancelApprovalSteps(tenantId: string, id: string): Promise<void> {
    const waiting = (await runRepository.steps(this.deps.db, id)).filter((s) => s.status === 'waiting' && s.action_execution_id);
    for (const step of waiting) {
      try {
        await this.deps.ports.control.cancel(tenantId, step.action_execution_id!);
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        const view = await this.deps.ports.executions.get(tenantId, step.action_execution_id!, false);
        if (view.status === 'cancelled') continue;
        throw new ConflictError(`The approval request of step ${step.step_id} was already decided; the run follows that decision.`, 'approval_resolved', { step_id: step.step_id, action_status: view.status });
      }
    }
  }

  /** The finish hook of action executions started by a step: makes the step's run due now, in the execution's ending transaction. */
  async onStepActionFinished(row: ExecutionRow, trx: Transaction): Promise<void> {
    if (!row.parent_id) return;
    const run = await runRepository.forStepRun(trx, row.parent_id);
    if (run) await runRepository.wake(trx, run.id, this.deps.now());
  }

  async #row(tenantId: string, id: string) {
    const row = await runRepository.get(this.deps.db, tenantId, id);
    if (!row) throw new NotFoundError('Playbook execution');
    return row;
  }

  async #asset(tenantId: string, id: string): Promise<Record<string, unknown>> {
    const asset = await this.deps.asset(tenantId, id);
    if (!asset) throw new NotFoundError('Target asset');
    return asset;
  }
}

/** The asset an event is about (finding events carry `asset.id`): a triggered run's target. */
function assetIdOf(event: TriggerEventRef | null): string | null {
  const asset = eventAsset(event?.data);
  return typeof asset?.id === 'string' ? asset.id : null;
}

/**
 * A playbook that declares its parameters takes only those: a misspelt name would
 * otherwise run with the default. 400 `unknown_parameter` naming each. A playbook that
 * declares none (the spec's form) takes any; a step missing one fails naming it.
 */
function undeclaredParameters(version: PlaybookVersion, given: Record<string, unknown>): void {
  const declared = Object.keys(version.parameters ?? {});
  if (!declared.length) return;
  const unknown = Object.keys(given).filter((name) => !declared.includes(name));
  if (!unknown.length) return;
  const names = unknown.map((n) => `"${n}"`).join(', ');
  throw new ValidationError(
    `The run parameter(s) ${names} are not declared by playbook ${version.name} (it declares ${declared.map((n) => `"${n}"`).join(', ')}).`,
    unknown.map((n) => ({ field: `parameters.${n}`, message: `is not a parameter of this playbook (declared: ${declared.join(', ')})` })),
    'unknown_parameter',
  );
}
