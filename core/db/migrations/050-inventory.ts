import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * The software inventory (issue 31 §2): each SBOM upload, the components and dependency
 * edges it listed, the asset's current upload, and the history of changes between uploads.
 *
 * An upload's rows are written under its own `sbom_id` while it is `writing`, invisible to
 * readers, and become the asset's inventory in one short transaction that moves
 * `asset_inventories.sbom_id` (core/inventory/inventory-repository.ts). Everything belongs
 * to an asset and goes with it (ON DELETE CASCADE).
 */
export const name = '050-inventory';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'sboms', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    t.string('format', 16).notNullable();
    t.string('spec_version', 16).notNullable();
    // writing → current → superseded; a crashed upload stays `writing` until the next upload of the asset removes it.
    t.string('status', 16).notNullable();
    t.string('subject_name', 512).nullable();
    t.string('subject_version', 256).nullable();
    t.string('tool', 256).nullable();
    t.integer('component_count').notNullable();
    t.integer('dependency_count').notNullable();
    jsonColumn(t, 'summary').notNullable();
    t.string('uploaded_by', 40).nullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['asset_id', 'created_at']);
    t.index(['tenant_id', 'status']);
  });

  await createTable(db, 'asset_inventories', (t) => {
    idColumn(t, 'asset_id').primary().references('id').inTable('assets').onDelete('CASCADE');
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'sbom_id').notNullable();
    timeColumn(t, 'updated_at').notNullable();
    t.index(['tenant_id', 'sbom_id']);
  });

  await createTable(db, 'sbom_components', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    idColumn(t, 'sbom_id').notNullable();
    t.string('name', 512).notNullable();
    // Lower-cased name: "where do we run X" by name, the same on both engines (binary collation).
    t.string('name_lower', 512).notNullable();
    t.string('group_name', 512).nullable();
    t.string('version', 256).nullable();
    t.text('purl').nullable();
    // The package without version, qualifiers or subpath (pkg:npm/lodash): the key across assets and uploads.
    t.string('purl_base', 512).nullable();
    t.string('type', 32).nullable();
    jsonColumn(t, 'licenses').notNullable();
    t.boolean('direct').notNullable().defaultTo(false);
    t.index(['sbom_id', 'name_lower', 'id']);
    t.index(['tenant_id', 'purl_base']);
    t.index(['tenant_id', 'name_lower']);
  });

  await createTable(db, 'sbom_dependencies', (t) => {
    idColumn(t, 'sbom_id').notNullable();
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    idColumn(t, 'parent_id').notNullable();
    idColumn(t, 'child_id').notNullable();
    t.primary(['sbom_id', 'parent_id', 'child_id']);
    t.index(['sbom_id', 'child_id']);
  });

  await createTable(db, 'sbom_changes', (t) => {
    t.bigIncrements('id').primary();
    idColumn(t, 'tenant_id').notNullable();
    idColumn(t, 'asset_id').notNullable().references('id').inTable('assets').onDelete('CASCADE');
    idColumn(t, 'sbom_id').notNullable();
    // added | removed | upgraded | downgraded | changed (a version change whose order is not known)
    t.string('change', 16).notNullable();
    t.string('name', 512).notNullable();
    t.string('purl_base', 512).nullable();
    t.string('old_version', 256).nullable();
    t.string('new_version', 256).nullable();
    timeColumn(t, 'created_at').notNullable();
    t.index(['asset_id', 'sbom_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['sbom_changes', 'sbom_dependencies', 'sbom_components', 'asset_inventories', 'sboms']) await db.schema.dropTableIfExists(table);
}
