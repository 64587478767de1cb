import type { Queryable } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import { toJson } from '../../db/json.ts';
import { paginate, type Page, type PageRequest } from '../../db/paginate.ts';
import { LeaseQueue } from '../../work/lease-queue.ts';
import { LIVE_RUN_STATUSES, type NewRun, type RunRow, type StepRunRow } from './run-rows.ts';

/**
 * Live runs by due time. Ready and held are the same states: a run keeps its status while
 * a worker holds it, so a run whose worker died (lease lapsed) is simply claimable again
 * and the next worker continues it from its step rows.
 */
const queue = new LeaseQueue({
  table: 'playbook_runs',
  ready: { status: [...LIVE_RUN_STATUSES] },
  held: { status: [...LIVE_RUN_STATUSES] },
  dueColumn: 'due_at',
  order: [{ column: 'due_at', order: 'asc' }, { column: 'id', order: 'asc' }],
});

export const runRepository = {
  /** Inserts a run, pending (or already running, with `start`); false when the (playbook, trigger event) pair already has one. */
  async insert(db: Queryable, r: NewRun): Promise<boolean> {
    try {
      await db('playbook_runs').insert({
        id: r.id,
        tenant_id: r.tenantId,
        playbook_id: r.playbookId,
        playbook_version_id: r.versionId,
        playbook_name: r.playbookName,
        snapshot: toJson(r.snapshot),
        status: r.start ? 'running' : 'pending',
        started_at: r.start?.at ?? null,
        deadline_at: r.start?.deadline ?? null,
        trigger_event_id: r.triggerEvent?.id ?? null,
        trigger_event: r.triggerEvent ? toJson(r.triggerEvent) : null,
        target_asset_id: r.targetAssetId,
        asset: r.asset ? toJson(r.asset) : null,
        parameters: toJson(r.parameters),
        depth: r.depth,
        steps_total: r.stepsTotal,
        requested_by: r.requestedBy ? toJson(r.requestedBy) : null,
        due_at: r.now,
        created_at: r.now,
        updated_at: r.now,
      });
      return true;
    } catch (err) {
      if (r.triggerEvent?.id && isUniqueViolation(err)) return false;
      throw err;
    }
  },

  async get(db: Queryable, tenantId: string, id: string): Promise<RunRow | undefined> {
    return db('playbook_runs').where({ tenant_id: tenantId, id }).first();
  },

  async getAny(db: Queryable, id: string): Promise<RunRow | undefined> {
    return db('playbook_runs').where({ id }).first();
  },

  async listForPlaybook(db: Queryable, tenantId: string, playbookId: string, page: PageRequest): Promise<Page<RunRow>> {
    return paginate<RunRow>(db('playbook_runs').where({ tenant_id: tenantId, playbook_id: playbookId }), page, (q) => q.orderBy('created_at', 'desc').orderBy('id', 'desc'));
  },

  /** The run a step run belongs to (for action executions whose parent is a playbook step). */
  async forStepRun(db: Queryable, stepRunId: string): Promise<RunRow | undefined> {
    const step = (await db('playbook_step_runs').where({ id: stepRunId }).first('run_id')) as { run_id: string } | undefined;
    return step ? db('playbook_runs').where({ id: step.run_id }).first() : undefined;
  },

  queue,

  async claim(db: Queryable, o: { token: string; now: number; leaseMs: number; limit: number }): Promise<string[]> {
    return queue.claim(db, o);
  },

  async renew(db: Queryable, id: string, token: string, until: number): Promise<boolean> {
    return queue.renew(db, id, token, until);
  },

  /** Writes to a run this worker holds; false when it no longer does. */
  async update(db: Queryable, id: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return queue.update(db, id, token, changes);
  },

  /**
   * Lets the run go until `dueAt`, unless a wake-up came in since the claim (`wakes`
   * moved): then it is due at once, so a step that ended while the worker held the run is
   * never left waiting for the next safety-net check.
   */
  async release(db: Queryable, id: string, token: string, seenWakes: number, changes: Record<string, unknown>, dueAt: number, now: number): Promise<boolean> {
    if (await queue.finish(db, id, token, { ...changes, updated_at: now, due_at: dueAt }, { wakes: seenWakes })) return true;
    return queue.finish(db, id, token, { ...changes, updated_at: now, due_at: now });
  },

  /** Ends a run this worker holds. */
  async finish(db: Queryable, id: string, token: string, changes: Record<string, unknown>): Promise<boolean> {
    return queue.finish(db, id, token, changes);
  },

  /** Ends a run nobody holds (a cancel): its lease is free or lapsed. */
  async finishFree(db: Queryable, id: string, now: number, changes: Record<string, unknown>): Promise<boolean> {
    return queue.finishFree(db, id, now, { status: [...LIVE_RUN_STATUSES] }, changes);
  },

  /** Makes a live run due now (a step's action ended, a cancel was asked for). */
  async wake(db: Queryable, id: string, now: number, extra: Record<string, unknown> = {}): Promise<boolean> {
    const n = await db('playbook_runs')
      .where({ id })
      .whereIn('status', [...LIVE_RUN_STATUSES])
      .update({ ...extra, due_at: now, wakes: db.raw('wakes + 1') });
    return n === 1;
  },

  async steps(db: Queryable, runId: string): Promise<StepRunRow[]> {
    return db('playbook_step_runs').where({ run_id: runId }).orderBy('seq', 'asc').orderBy('id', 'asc');
  },

  /** Inserts a step run; false when the step already has one in this run (a step runs at most once). */
  async insertStep(db: Queryable, row: Omit<StepRunRow, 'seq'> & { seq?: number }): Promise<boolean> {
    try {
      await db('playbook_step_runs').insert({ seq: 0, ...row });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  },

  async updateStep(db: Queryable, id: string, changes: Record<string, unknown>): Promise<void> {
    await db('playbook_step_runs').where({ id }).update(changes);
  },

  async updateSteps(db: Queryable, runId: string, statuses: readonly string[], changes: Record<string, unknown>): Promise<void> {
    await db('playbook_step_runs').where({ run_id: runId }).whereIn('status', [...statuses]).update(changes);
  },
};
