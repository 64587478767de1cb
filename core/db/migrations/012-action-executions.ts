import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Action executions and their log lines (core/action-runs). A row is the run and its
 * queue entry at once: the run worker claims `pending` rows with a lease (durable-work
 * kernel); a retry is the same row back in `pending` with a later `due_at`. Secret values
 * are never stored: `parameters` holds only the non-secret ones, and output, error, plan
 * and log lines are scrubbed of every secret value before they are written.
 */
export const name = '012-action-executions';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'action_executions', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'action_id').notNullable();
    idColumn(t, 'action_version_id').notNullable();
    t.string('action_name', 200).notNullable();
    t.string('action_version', 64).notNullable();
    // pending -> running -> completed | failed | timed_out; pending|running -> cancelled.
    t.string('status', 16).notNullable();
    // Why a pending run is not claimable: 'approval' while its approval request is open.
    t.string('wait_reason', 16).nullable();
    idColumn(t, 'approval_id').nullable();
    idColumn(t, 'target').nullable();
    jsonColumn(t, 'parameters').notNullable();
    // Secret parameter name -> credential name: values are fetched when the attempt starts.
    jsonColumn(t, 'secret_refs').notNullable();
    // The exact action version the run executes (definitions hold no secrets), so an
    // edit or a new version never changes a queued run.
    jsonColumn(t, 'action_snapshot').notNullable();
    jsonColumn(t, 'output').nullable();
    jsonColumn(t, 'error').nullable();
    t.boolean('sandbox').notNullable().defaultTo(false);
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.integer('attempt').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(1);
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    // Who started it, for audit and approvals: {user_id, token_id}.
    jsonColumn(t, 'requested_by').nullable();
    // A run started by a playbook step (the playbooks issue): its run and step.
    t.string('parent_kind', 32).nullable();
    t.string('parent_id', 64).nullable();
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'due_at').notNullable().defaultTo(0);
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'completed_at').nullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'action_id', 'created_at']);
    t.index(['status', 'due_at']);
    t.index(['status', 'locked_until']);
    t.index(['action_id', 'locked_until']);
  });
  await createTable(db, 'action_execution_logs', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'execution_id').notNullable().references('id').inTable('action_executions').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.integer('attempt').notNullable();
    t.string('level', 8).notNullable();
    t.text('message').notNullable();
    timeColumn(t, 'logged_at').notNullable();
    t.index(['execution_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('action_execution_logs');
  await db.schema.dropTableIfExists('action_executions');
}
