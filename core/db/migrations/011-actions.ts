import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * actions, action versions and tenant credentials (core/actions, core/secrets).
 * An action is the named, tenant-unique handle runs and playbooks refer to; every
 * change of behaviour is a new immutable version row, and the action points at the
 * active one (so going back is a pointer move, and a run records exactly what ran).
 */
export const name = '011-actions';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'actions', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    // 'reference' (POST /api/actions) or 'definition' (POST /api/actions/definitions).
    t.string('view', 16).notNullable();
    t.boolean('enabled').notNullable();
    idColumn(t, 'active_version_id').notNullable();
    t.string('created_by', 40).nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.unique(['tenant_id', 'name']);
    t.index(['tenant_id', 'created_at']);
  });
  await createTable(db, 'action_versions', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'action_id').notNullable().references('id').inTable('actions').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('version', 40).notNullable();
    // Sortable parts of the semantic version (newest first = major, minor, patch descending).
    t.integer('major').notNullable();
    t.integer('minor').notNullable();
    t.integer('patch').notNullable();
    t.string('type', 64).notNullable();
    t.text('description').notNullable();
    jsonColumn(t, 'executor').notNullable();
    jsonColumn(t, 'config').notNullable();
    jsonColumn(t, 'parameters').notNullable();
    jsonColumn(t, 'input_mapping').nullable();
    t.integer('timeout_seconds').notNullable();
    jsonColumn(t, 'retry').notNullable();
    t.string('created_by', 40).nullable();
    timeColumn(t, 'created_at').notNullable();
    t.unique(['action_id', 'version']);
    t.index(['tenant_id', 'type']);
  });
  await createTable(db, 'credentials', (t) => {
    // Addressed by name only (the API never shows an id), so the key is the pair.
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.text('value_sealed').notNullable();
    t.text('sandbox_value_sealed').nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.primary(['tenant_id', 'name']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('credentials');
  await db.schema.dropTableIfExists('action_versions');
  await db.schema.dropTableIfExists('actions');
}
