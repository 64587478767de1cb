import type { Knex } from 'knex';
import { dialectOf } from '../create-db.ts';
import { createTable, idColumn } from '../table-defaults.ts';
import { indexedWords } from '../../domain/search-words.ts';

/**
 * MariaDB: search from an own word index instead of InnoDB FULLTEXT (issue 17 §4).
 *
 * InnoDB reads a word's whole posting list for every MATCH, so counting a common word's
 * matches took seconds (1.5 s for 22k matches of 440k findings, after OPTIMIZE) and a
 * phrase with a word found in every finding longer. `finding_words` holds one row per
 * distinct word of a finding's title and description, keyed (tenant, word, finding): a
 * word's matches in one tenant are one primary-key range, counted or tested one lookup
 * each. Written with the finding (findingWordRepository.add, same transaction), removed
 * with it (ON DELETE CASCADE). Phrases are checked with a REGEXP on the lower-cased columns
 * migration 018 added, on the findings that have all their words. The FULLTEXT index goes.
 * SQLite keeps FTS5, which answers all of this from its own index.
 */
export const name = '019-finding-words';

const BATCH = 1000;

export async function up(db: Knex): Promise<void> {
  if (dialectOf(db) !== 'mysql') return;
  await createTable(db, 'finding_words', (t) => {
    idColumn(t, 'tenant_id').notNullable();
    t.string('word', 84).notNullable();
    idColumn(t, 'finding_id').notNullable().references('id').inTable('findings').onDelete('CASCADE');
    t.primary(['tenant_id', 'word', 'finding_id']);
    t.index(['finding_id']);
  });
  let after = '';
  for (;;) {
    const rows = (await db('findings').where('id', '>', after).orderBy('id').limit(BATCH).select('id', 'tenant_id', 'title', 'description')) as Array<{ id: string; tenant_id: string; title: string; description: string }>;
    if (!rows.length) break;
    const words = rows.flatMap((r) => indexedWords(r.title, r.description).map((word) => ({ tenant_id: r.tenant_id, word, finding_id: r.id })));
    for (let i = 0; i < words.length; i += BATCH) await db('finding_words').insert(words.slice(i, i + BATCH));
    after = rows[rows.length - 1]!.id;
  }
  await db.raw('alter table findings drop index findings_search');
}

export async function down(db: Knex): Promise<void> {
  if (dialectOf(db) !== 'mysql') return;
  await db.raw('set session innodb_ft_enable_stopword = 0');
  try {
    await db.raw('alter table findings add fulltext index findings_search (search_title, search_description)');
  } finally {
    await db.raw('set session innodb_ft_enable_stopword = default');
  }
  await db.schema.dropTableIfExists('finding_words');
}
