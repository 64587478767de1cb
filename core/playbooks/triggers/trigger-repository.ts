import type { Queryable } from '../../db/create-db.ts';

/**
 * Where an event came from, as far as playbook runs are concerned: the depth of the run
 * that caused it, or null when no playbook run did. `action.*` events name an action
 * execution: caused when its parent is a playbook step. `playbook.*` events name the run itself.
 */
export const triggerRepository = {
  async depthOfRun(db: Queryable, runId: string): Promise<number | null> {
    const row = (await db('playbook_runs').where({ id: runId }).first('depth')) as { depth: number } | undefined;
    return row ? Number(row.depth) : null;
  },

  async depthOfExecution(db: Queryable, executionId: string): Promise<number | null> {
    const row = (await db('action_executions as e')
      .join('playbook_step_runs as s', 's.id', 'e.parent_id')
      .join('playbook_runs as r', 'r.id', 's.run_id')
      .where('e.id', executionId)
      .where('e.parent_kind', 'playbook_step')
      .first('r.depth')) as { depth: number } | undefined;
    return row ? Number(row.depth) : null;
  },
};
