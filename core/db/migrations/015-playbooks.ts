import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Playbooks and their immutable versions (core/playbooks/catalog). A playbook points at
 * its active version (always the newest: PUT registers a higher one); a run records the
 * version it ran, so old versions are never deleted. DELETE is soft (`deleted_at`): the
 * playbook leaves lists and triggers, and runs keep reading their version.
 */
export const name = '015-playbooks';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'playbooks', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    // `name` while the playbook exists, NULL once deleted: a unique index that ignores
    // deleted playbooks on both engines (NULLs never collide; MariaDB has no partial index).
    t.string('live_name', 200).nullable();
    t.boolean('enabled').notNullable();
    idColumn(t, 'active_version_id').notNullable();
    t.string('created_by', 40).nullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    timeColumn(t, 'deleted_at').nullable();
    t.unique(['tenant_id', 'live_name']);
    t.index(['tenant_id', 'created_at']);
  });
  await createTable(db, 'playbook_versions', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'playbook_id').notNullable().references('id').inTable('playbooks').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('version', 40).notNullable();
    // Sortable parts of the semantic version (newest first = major, minor, patch descending).
    t.integer('major').notNullable();
    t.integer('minor').notNullable();
    t.integer('patch').notNullable();
    // Copied out of `definition` for search and trigger matching.
    t.text('description').notNullable();
    t.string('trigger_event', 64).notNullable();
    t.integer('step_count').notNullable();
    // The whole PlaybookDefinition as validated (defaults filled in).
    jsonColumn(t, 'definition').notNullable();
    t.string('created_by', 40).nullable();
    timeColumn(t, 'created_at').notNullable();
    t.unique(['playbook_id', 'version']);
    // The trigger consumer: the tenant's playbooks whose active version listens to a kind.
    t.index(['tenant_id', 'trigger_event']);
  });
  // The active version's tags, one row each, so `?tag=` is an indexed lookup on both engines.
  await createTable(db, 'playbook_tags', (t) => {
    idColumn(t, 'playbook_id').notNullable().references('id').inTable('playbooks').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    t.string('tag', 50).notNullable();
    t.primary(['playbook_id', 'tag']);
    t.index(['tenant_id', 'tag']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('playbook_tags');
  await db.schema.dropTableIfExists('playbook_versions');
  await db.schema.dropTableIfExists('playbooks');
}
