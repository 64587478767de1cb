import type { Knex } from 'knex';

/**
 * Timings read back from the rows the engine wrote (bench/playbooks.ts). Every time is
 * the engine's own epoch ms column, so the figures need no clock in the benchmark:
 * events.created_at (set inside the committing transaction), playbook_runs.created_at
 * (the trigger consumer queued the run), playbook_step_runs.started_at (a run worker
 * started the step) and action_executions.started_at (the action worker claimed the
 * step's action: the script is about to run).
 */
export interface TriggerTiming {
  /** event → run queued by the trigger consumer. */
  queuedMs: number;
  /** event → first step run started (the figure). */
  stepMs: number;
  /** event → the first step's action claimed by the action worker (the script starts). */
  actionMs: number;
}

const num = (v: unknown) => Number(v);

/** One timing per `finding.new` event of the tenant after `afterEventId` that triggered a run of `playbookId`; throws unless there are `expected`. */
export async function triggerTimings(db: Knex, tenantId: string, playbookId: string, afterEventId: number, expected: number): Promise<TriggerTiming[]> {
  const rows = (await db('events as e')
    .join('playbook_runs as r', 'r.trigger_event_id', 'e.id')
    .join('playbook_step_runs as s', 's.run_id', 'r.id')
    .leftJoin('action_executions as x', 'x.id', 's.action_execution_id')
    .where({ 'e.tenant_id': tenantId, 'e.kind': 'finding.new', 'r.playbook_id': playbookId, 's.seq': 1 })
    .andWhere('e.id', '>', afterEventId)
    .select('e.created_at as event_at', 'r.created_at as run_at', 's.started_at as step_at', 'x.started_at as action_at')) as Array<Record<string, unknown>>;
  if (rows.length !== expected) throw new Error(`${rows.length} triggered first steps, not ${expected}`);
  return rows.map((r) => ({ queuedMs: num(r.run_at) - num(r.event_at), stepMs: num(r.step_at) - num(r.event_at), actionMs: num(r.action_at) - num(r.event_at) }));
}

/** Trigger committed → action claimed, for the executions of `actionId` with no parent (triggered directly) created at or after `since`. */
export async function directStartTimes(db: Knex, actionId: string, since: number): Promise<number[]> {
  const rows = (await db('action_executions').where({ action_id: actionId }).whereNull('parent_id').andWhere('created_at', '>=', since).select('created_at', 'started_at')) as Array<Record<string, unknown>>;
  return rows.map((r) => num(r.started_at) - num(r.created_at));
}

/** Waits until `count()` reaches `n`, polling every 10 ms; gives up after `timeoutMs`. */
export async function waitFor(count: () => Promise<number>, n: number, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const have = await count();
    if (have >= n) return;
    if (Date.now() > until) throw new Error(`gave up waiting: ${have} of ${n}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const FINAL_RUNS = ['completed', 'failed', 'cancelled'];
const FINAL_EXECUTIONS = ['completed', 'failed', 'timed_out', 'cancelled'];

export const endedRuns = async (db: Knex, playbookId: string): Promise<number> =>
  Number(((await db('playbook_runs').where({ playbook_id: playbookId }).whereIn('status', FINAL_RUNS).count({ n: '*' }).first()) as { n: number | string }).n);

export const startedFirstSteps = async (db: Knex, playbookId: string): Promise<number> =>
  Number(((await db('playbook_step_runs as s').join('playbook_runs as r', 'r.id', 's.run_id').join('action_executions as x', 'x.id', 's.action_execution_id').where({ 'r.playbook_id': playbookId, 's.seq': 1 }).whereNotNull('x.started_at').count({ n: '*' }).first()) as { n: number | string }).n);

export const endedDirect = async (db: Knex, actionId: string): Promise<number> =>
  Number(((await db('action_executions').where({ action_id: actionId }).whereNull('parent_id').whereIn('status', FINAL_EXECUTIONS).count({ n: '*' }).first()) as { n: number | string }).n);

/** Final states of a playbook's runs, e.g. "completed 200". */
export async function runOutcomes(db: Knex, playbookId: string): Promise<string> {
  const rows = (await db('playbook_runs').where({ playbook_id: playbookId }).groupBy('status').select('status', db.raw('count(*) as n'))) as Array<{ status: string; n: number | string }>;
  return rows.map((r) => `${r.status} ${r.n}`).join(', ');
}

/** Per run of a playbook: created → completed, and the gaps between one step's end and the next one's start. */
export async function runShape(db: Knex, playbookId: string): Promise<{ runMs: number[]; gapMs: number[]; actionMs: number[] }> {
  const runs = (await db('playbook_runs').where({ playbook_id: playbookId }).select('id', 'created_at', 'completed_at')) as Array<Record<string, unknown>>;
  const steps = (await db('playbook_step_runs as s')
    .join('playbook_runs as r', 'r.id', 's.run_id')
    .leftJoin('action_executions as x', 'x.id', 's.action_execution_id')
    .where({ 'r.playbook_id': playbookId })
    .orderBy('s.seq')
    .select('s.run_id', 's.started_at', 's.completed_at', 'x.started_at as x_started', 'x.completed_at as x_completed')) as Array<Record<string, unknown>>;
  const byRun = new Map<string, Array<Record<string, unknown>>>();
  for (const s of steps) byRun.set(String(s.run_id), [...(byRun.get(String(s.run_id)) ?? []), s]);
  const gapMs: number[] = [];
  const actionMs: number[] = [];
  for (const list of byRun.values()) {
    for (let i = 0; i < list.length; i++) {
      actionMs.push(num(list[i]!.x_completed) - num(list[i]!.x_started));
      if (i > 0) gapMs.push(num(list[i]!.x_started) - num(list[i - 1]!.x_completed));
    }
  }
  return { runMs: runs.map((r) => num(r.completed_at) - num(r.created_at)), gapMs, actionMs };
}
