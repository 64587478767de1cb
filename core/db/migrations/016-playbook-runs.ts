import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Playbook runs and their step runs (core/playbooks/runs). A run row is the run and its
 * queue entry at once: the run worker claims due rows with a lease, advances the run as
 * far as it can and lets it go with the next due time (the wake-up of a finishing step
 * action sets it to now). `UNIQUE(playbook_id, trigger_event_id)` makes "one run per
 * playbook per event" hold across processes and restarts; `UNIQUE(run_id, step_id)`
 * makes a step run at most once per run.
 */
export const name = '016-playbook-runs';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'playbook_runs', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'playbook_id').notNullable();
    idColumn(t, 'playbook_version_id').notNullable();
    t.string('playbook_name', 200).notNullable();
    // The PlaybookDefinition the run executes: a new version never changes a started run.
    jsonColumn(t, 'snapshot').notNullable();
    // pending -> running <-> paused -> completed | failed | cancelled.
    t.string('status', 16).notNullable();
    t.bigInteger('trigger_event_id').nullable();
    jsonColumn(t, 'trigger_event').nullable();
    idColumn(t, 'target_asset_id').nullable();
    // The run's asset as the placeholders see it ({{ asset.name }}), taken when the run was created.
    jsonColumn(t, 'asset').nullable();
    jsonColumn(t, 'parameters').notNullable();
    t.integer('depth').notNullable().defaultTo(0);
    t.string('current_step', 64).nullable();
    t.integer('steps_completed').notNullable().defaultTo(0);
    t.integer('steps_total').notNullable().defaultTo(0);
    jsonColumn(t, 'error').nullable();
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    // Counts wake-ups (a step's action ended): a worker releasing the run sees one that came in meanwhile.
    t.integer('wakes').notNullable().defaultTo(0);
    jsonColumn(t, 'requested_by').nullable();
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'due_at').notNullable().defaultTo(0);
    timeColumn(t, 'deadline_at').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'completed_at').nullable();
    timeColumn(t, 'updated_at').notNullable();
    t.unique(['playbook_id', 'trigger_event_id']);
    t.index(['tenant_id', 'playbook_id', 'created_at']);
    t.index(['status', 'due_at']);
  });
  await createTable(db, 'playbook_step_runs', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'run_id').notNullable().references('id').inTable('playbook_runs').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('step_id', 64).notNullable();
    t.string('step_name', 200).notNullable();
    t.string('type', 16).notNullable();
    // pending | running | waiting (an approval) | completed | failed | skipped | cancelled.
    t.string('status', 16).notNullable();
    idColumn(t, 'action_execution_id').nullable();
    // The rendered parameters the step's action was triggered with (a re-trigger after a crash sends the same).
    jsonColumn(t, 'input').nullable();
    jsonColumn(t, 'output').nullable();
    jsonColumn(t, 'error').nullable();
    t.integer('seq').notNullable().defaultTo(0);
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'completed_at').nullable();
    t.unique(['run_id', 'step_id']);
    t.index(['action_execution_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('playbook_step_runs');
  await db.schema.dropTableIfExists('playbook_runs');
}
