import type { Queryable } from '../../db/create-db.ts';
import { fromJson } from '../../db/json.ts';

/** The run whose own events caused an event: its depth and the root of its trigger tree. */
export interface CauseRun {
  runId: string;
  depth: number;
  /** The run at the top of the chain (itself when it was not caused by a run). */
  rootRunId: string;
}

type Row = { id: string; depth: number; trigger_event: string | null };

const causeOf = (row: Row | undefined): CauseRun | null => {
  if (!row) return null;
  const root = fromJson<{ root_run_id?: unknown } | null>(row.trigger_event, null)?.root_run_id;
  return { runId: row.id, depth: Number(row.depth), rootRunId: typeof root === 'string' ? root : row.id };
};

/**
 * Where an event came from, as far as playbook runs are concerned: the run that caused
 * it, or null when no playbook run did. `action.*` events name an action execution:
 * caused when its parent is a playbook step. `playbook.*` events name the run itself.
 */
export const triggerRepository = {
  async causeRun(db: Queryable, runId: string): Promise<CauseRun | null> {
    return causeOf((await db('playbook_runs').where({ id: runId }).first('id', 'depth', 'trigger_event')) as Row | undefined);
  },

  async causeExecution(db: Queryable, executionId: string): Promise<CauseRun | null> {
    const row = (await db('action_executions as e')
      .join('playbook_step_runs as s', 's.id', 'e.parent_id')
      .join('playbook_runs as r', 'r.id', 's.run_id')
      .where('e.id', executionId)
      .where('e.parent_kind', 'playbook_step')
      .first('r.id', 'r.depth', 'r.trigger_event')) as Row | undefined;
    return causeOf(row);
  },

  /**
   * How many runs a root run has caused so far, at any depth: the runs whose trigger
   * event carries its id as `root_run_id`. Read from the tenant's runs created since the
   * root (the tenant index), so it costs one pass over the runs of that window.
   */
  async causedBy(db: Queryable, tenantId: string, rootRunId: string): Promise<number> {
    const root = (await db('playbook_runs').where({ id: rootRunId }).first('created_at')) as { created_at: number } | undefined;
    if (!root) return 0;
    const row = (await db('playbook_runs')
      .where({ tenant_id: tenantId })
      .where('created_at', '>=', root.created_at)
      .where('depth', '>', 0)
      .where('trigger_event', 'like', `%"root_run_id":${JSON.stringify(rootRunId)}%`)
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },
};
