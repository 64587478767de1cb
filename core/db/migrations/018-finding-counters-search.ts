import type { Knex } from 'knex';
import { dialectOf } from '../create-db.ts';
import { createTable, idColumn } from '../table-defaults.ts';

/**
 * Maintained finding aggregates and an index for free-text search (issue 17 §4).
 *
 * `finding_counters` (tenant × severity rank × status → n) and `finding_daily` (tenant ×
 * UTC day → findings created, distinct findings resolved) are written in the same
 * transaction as every finding change (core/findings/finding-counters.ts), so stats and an
 * unfiltered list's total read a few dozen rows instead of a tenant's every finding. They
 * are filled here from the rows already there, with the definitions of the recount
 * (core/findings/finding-recount.ts).
 *
 * Search: on SQLite an FTS5 table over tenant, title and description with the findings
 * table as its external content, kept in sync by triggers (they also fire for rows removed by the
 * asset's ON DELETE CASCADE). It points at the findings' implicit rowid, which a VACUUM or
 * a later migration that rebuilds the table may renumber: `rampart admin findings recount
 * --repair` rebuilds the index, and such a migration must recreate the triggers. On
 * MariaDB a FULLTEXT index over stored lower-cased copies of both columns: the columns'
 * binary collation would make the index case-sensitive. It is built without stopwords so
 * `the` or `with` are words like any other, as in FTS5.
 */
export const name = '018-finding-counters-search';

const DAY_MS = 86_400_000;
const day = (column: string) => `(${column} - (${column} % ${DAY_MS}))`;

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'finding_counters', (t) => {
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.tinyint('severity_rank').notNullable();
    t.string('status', 20).notNullable();
    t.bigInteger('n').notNullable().defaultTo(0);
    t.primary(['tenant_id', 'severity_rank', 'status']);
  });
  await createTable(db, 'finding_daily', (t) => {
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.bigInteger('day').notNullable();
    t.bigInteger('created').notNullable().defaultTo(0);
    t.bigInteger('resolved').notNullable().defaultTo(0);
    t.primary(['tenant_id', 'day']);
  });

  await db.raw(`insert into finding_counters (tenant_id, severity_rank, status, n)
    select tenant_id, severity_rank, status, count(*) from findings group by tenant_id, severity_rank, status`);
  await db.raw(`insert into finding_daily (tenant_id, day, created, resolved)
    select tenant_id, day, sum(c), sum(r) from (
      select tenant_id, ${day('created_at')} as day, count(*) as c, 0 as r from findings group by tenant_id, ${day('created_at')}
      union all
      select tenant_id, day, 0 as c, count(*) as r from (
        select distinct tenant_id, finding_id, ${day('changed_at')} as day from finding_status_history
        where new_status = 'resolved' and old_status is not null
      ) resolutions group by tenant_id, day
    ) per_day group by tenant_id, day`);

  if (dialectOf(db) === 'mysql') {
    await db.raw(`alter table findings
      add column search_title varchar(300) as (lower(title)) stored,
      add column search_description mediumtext as (lower(description)) stored`);
    // The stopword setting is read when the index is built and kept with it.
    await db.raw('set session innodb_ft_enable_stopword = 0');
    try {
      await db.raw('alter table findings add fulltext index findings_search (search_title, search_description)');
    } finally {
      await db.raw('set session innodb_ft_enable_stopword = default');
    }
    return;
  }
  // tenant_id is indexed too (with `_` a word character, an id is one token): a search can then
  // be counted inside the index, without reading a findings row per match.
  await db.raw(`create virtual table findings_fts using fts5(tenant_id, title, description, content='findings',
    tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`);
  await db.raw(`create trigger findings_fts_insert after insert on findings begin
    insert into findings_fts(rowid, tenant_id, title, description) values (new.rowid, new.tenant_id, new.title, new.description); end`);
  await db.raw(`create trigger findings_fts_delete after delete on findings begin
    insert into findings_fts(findings_fts, rowid, tenant_id, title, description) values ('delete', old.rowid, old.tenant_id, old.title, old.description); end`);
  await db.raw(`create trigger findings_fts_update after update of tenant_id, title, description on findings begin
    insert into findings_fts(findings_fts, rowid, tenant_id, title, description) values ('delete', old.rowid, old.tenant_id, old.title, old.description);
    insert into findings_fts(rowid, tenant_id, title, description) values (new.rowid, new.tenant_id, new.title, new.description); end`);
  await db.raw("insert into findings_fts(findings_fts) values ('rebuild')");
}

export async function down(db: Knex): Promise<void> {
  if (dialectOf(db) === 'mysql') {
    await db.raw('alter table findings drop index findings_search, drop column search_title, drop column search_description');
  } else {
    for (const trigger of ['findings_fts_insert', 'findings_fts_delete', 'findings_fts_update']) await db.raw(`drop trigger if exists ${trigger}`);
    await db.raw('drop table if exists findings_fts');
  }
  for (const table of ['finding_daily', 'finding_counters']) await db.schema.dropTableIfExists(table);
}
