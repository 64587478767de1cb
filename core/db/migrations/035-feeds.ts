import type { Knex } from 'knex';
import { createTable, idColumn, timeColumn } from '../table-defaults.ts';

/**
 * The vulnerability-intelligence feeds (issue 27 §3): the CISA KEV catalog and FIRST EPSS
 * scores. Feeds are global, not per tenant.
 *
 * A load writes its rows under its own `load_id` while it is `staging`, invisible to
 * readers, and becomes the feed in force in one short transaction that moves
 * `feeds_current.load_id` (core/feeds/feed-repository.ts); a refused load leaves the
 * pointer where it was. `feed_changes` keeps, per load, the CVEs it added, removed or
 * changed, so findings are re-enriched only for those.
 */
export const name = '035-feeds';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'feed_loads', (t) => {
    idColumn(t, 'id').primary();
    t.string('feed', 16).notNullable();
    // file | url
    t.string('source_kind', 8).notNullable();
    // The file path or the URL without user info and query (a mirror's credentials stay out).
    t.string('source', 2048).notNullable();
    // staging → current → superseded; or refused (with `error`).
    t.string('status', 16).notNullable();
    t.string('feed_date', 40).nullable();
    t.string('feed_version', 64).nullable();
    t.integer('row_count').notNullable().defaultTo(0);
    t.integer('added').notNullable().defaultTo(0);
    t.integer('removed').notNullable().defaultTo(0);
    t.integer('changed').notNullable().defaultTo(0);
    t.string('sha256', 64).nullable();
    t.bigInteger('bytes').notNullable().defaultTo(0);
    t.text('error').nullable();
    timeColumn(t, 'started_at').notNullable();
    timeColumn(t, 'loaded_at').nullable();
    t.index(['feed', 'started_at']);
    t.index(['status', 'started_at']);
  });

  // One row per feed, seeded, so a swap always has a row to lock (two first loads at once).
  await createTable(db, 'feeds_current', (t) => {
    t.string('feed', 16).primary();
    idColumn(t, 'load_id').nullable();
    timeColumn(t, 'updated_at').notNullable();
  });
  await db('feeds_current').insert([{ feed: 'kev', load_id: null, updated_at: 0 }, { feed: 'epss', load_id: null, updated_at: 0 }]);

  await createTable(db, 'kev_entries', (t) => {
    idColumn(t, 'load_id').notNullable();
    t.string('cve_id', 32).notNullable();
    t.string('vendor_project', 255).notNullable();
    t.string('product', 255).notNullable();
    t.string('vulnerability_name', 512).notNullable();
    t.string('date_added', 10).notNullable();
    t.text('short_description').notNullable();
    t.text('required_action').notNullable();
    t.string('due_date', 10).notNullable();
    // "Known" or "Unknown", as the catalog says it.
    t.string('known_ransomware', 16).notNullable();
    t.text('notes').notNullable();
    // A JSON array of CWE ids.
    t.string('cwes', 1024).notNullable();
    t.primary(['load_id', 'cve_id']);
  });

  await createTable(db, 'epss_scores', (t) => {
    idColumn(t, 'load_id').notNullable();
    t.string('cve_id', 32).notNullable();
    t.double('epss').notNullable();
    t.double('percentile').notNullable();
    t.primary(['load_id', 'cve_id']);
  });

  await createTable(db, 'feed_changes', (t) => {
    idColumn(t, 'load_id').notNullable();
    t.string('cve_id', 32).notNullable();
    // added | removed | changed
    t.string('kind', 8).notNullable();
    t.primary(['load_id', 'cve_id']);
  });

  // The scheduled fetch: one row per feed, claimed through a LeaseQueue when due.
  await createTable(db, 'feed_fetches', (t) => {
    t.string('feed', 16).primary();
    timeColumn(t, 'due_at').notNullable();
    t.string('locked_by', 64).nullable();
    timeColumn(t, 'locked_until').notNullable().defaultTo(0);
    t.integer('failures').notNullable().defaultTo(0);
    t.text('last_error').nullable();
    timeColumn(t, 'last_attempt_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['feed_fetches', 'feed_changes', 'epss_scores', 'kev_entries', 'feeds_current', 'feed_loads']) await db.schema.dropTableIfExists(table);
}
