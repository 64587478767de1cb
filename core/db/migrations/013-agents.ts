import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * On-site execution agents and their jobs (core/agents). A job row is the queue entry
 * (claimed with a lease, core/work/lease-queue.ts) and the record of one attempt of one
 * action execution: `(execution_id, attempt)` is unique, so a re-dispatch of the same
 * attempt finds the existing job instead of running it again. Parameters, results and
 * streamed log lines can hold secret values: they are stored sealed (core/secrets).
 */
export const name = '013-agents';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'agents', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    jsonColumn(t, 'labels').notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('token_prefix', 16).notNullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    timeColumn(t, 'last_seen_at').nullable();
    timeColumn(t, 'revoked_at').nullable();
    // A revoked agent keeps its name: its job history still points at it.
    t.unique(['tenant_id', 'name']);
    t.index(['tenant_id', 'created_at']);
  });
  await createTable(db, 'agent_jobs', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'execution_id').notNullable();
    t.integer('attempt').notNullable();
    t.string('target', 64).notNullable();
    jsonColumn(t, 'command').notNullable();
    jsonColumn(t, 'params_sealed').notNullable();
    t.boolean('sandbox').notNullable();
    t.integer('timeout_ms').notNullable();
    timeColumn(t, 'deadline_at').notNullable();
    // queued -> claimed -> running -> completed | failed | timed_out; queued|claimed|running -> cancelled | timed_out;
    // claimed -> queued again when its lease lapses before start.
    t.string('status', 16).notNullable();
    idColumn(t, 'agent_id').nullable();
    t.string('locked_by', 96).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    jsonColumn(t, 'result_sealed').nullable();
    t.string('error_code', 64).nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'claimed_at').nullable();
    timeColumn(t, 'started_at').nullable();
    timeColumn(t, 'finished_at').nullable();
    timeColumn(t, 'updated_at').notNullable();
    t.unique(['execution_id', 'attempt']);
    t.index(['tenant_id', 'status', 'locked_until']);
    t.index(['agent_id', 'created_at']);
    t.index(['status', 'deadline_at']);
  });
  await createTable(db, 'agent_job_logs', (t) => {
    t.increments('id').primary();
    idColumn(t, 'job_id').notNullable().references('id').inTable('agent_jobs').onDelete('CASCADE');
    // One sealed batch of lines: the dispatcher forwards them to the run's log and deletes the row.
    jsonColumn(t, 'lines_sealed').notNullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['job_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('agent_job_logs');
  await db.schema.dropTableIfExists('agent_jobs');
  await db.schema.dropTableIfExists('agents');
}
