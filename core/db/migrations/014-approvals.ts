import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Approval requests and their decisions (core/approvals). A request is generic: its
 * subject (`subject_kind`, `subject_id`) is an action execution today and a paused
 * playbook run later. A request row is also a durable-work row: `due_at` says when the
 * sweeper must look at it (its expiry while pending, at once while its resolution is
 * unhandled, null when there is nothing left to do) and `locked_by`/`locked_until` are
 * the lease of whoever is calling the subject's handler.
 */
export const name = '014-approvals';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'approval_requests', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('subject_kind', 40).notNullable();
    t.string('subject_id', 64).notNullable();
    t.text('message').notNullable();
    jsonColumn(t, 'details').notNullable();
    t.integer('required_approvals').notNullable();
    jsonColumn(t, 'allowed').nullable();
    jsonColumn(t, 'requested_by').notNullable();
    // pending -> approved | denied | expired | cancelled, once.
    t.string('status', 16).notNullable();
    t.string('on_expiry', 8).notNullable();
    // decision | expiry | cancel: what moved it out of pending.
    t.string('resolved_by', 16).nullable();
    t.string('cancel_reason', 500).nullable();
    timeColumn(t, 'expires_at').notNullable();
    timeColumn(t, 'resolved_at').nullable();
    timeColumn(t, 'resolution_handled_at').nullable();
    timeColumn(t, 'due_at').nullable();
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'created_at']);
    t.index(['tenant_id', 'status', 'created_at']);
    t.index(['tenant_id', 'subject_kind', 'subject_id']);
    t.index(['due_at', 'locked_until']);
  });
  await createTable(db, 'approval_decisions', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'request_id').notNullable().references('id').inTable('approval_requests').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    // The person: the user id when the token belongs to a user, else the token id.
    idColumn(t, 'decider_key').notNullable();
    // Plain ids, no foreign keys: the audit record outlives a deleted user or token.
    idColumn(t, 'decider_user_id').nullable();
    idColumn(t, 'decider_token_id').notNullable();
    t.string('decision', 8).notNullable();
    t.text('comment').nullable();
    timeColumn(t, 'created_at').notNullable();
    t.unique(['request_id', 'decider_key']);
    t.index(['request_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('approval_decisions');
  await db.schema.dropTableIfExists('approval_requests');
}
