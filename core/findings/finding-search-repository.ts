import type { Knex } from 'knex';
import { dialectOf, type Db, type Queryable } from '../db/create-db.ts';
import { fts5Expression, parseSearch } from './finding-search.ts';
import { findingWordRepository } from './finding-word-repository.ts';

/** What the search index check found (FTS5 on SQLite, the word index on MariaDB). */
export interface SearchIndexCheck {
  consistent: boolean;
  rebuilt: boolean;
}

/**
 * The index-backed side of `search=`: SQLite answers from the FTS5 table findings_fts
 * (migration 018), MariaDB from its word index finding_words (migration 019,
 * finding-word-repository.ts). Both get the same parsed terms (finding-search.ts), so they
 * agree on what matches.
 */
export const findingSearchRepository = {
  /**
   * Narrows a query on the tenant's `findings` to the rows matching `search`; throws
   * ValidationError (400) for a search it cannot answer. On SQLite the matches drive the
   * query (the planner starts from their rowids) unless `drive` is false: then `+rowid`
   * makes them a filter, so a common word's first page comes from walking a sort index
   * and testing each entry, instead of sorting every match.
   */
  whereSearch(q: Knex.QueryBuilder, db: Queryable, tenantId: string, search: string, drive = true): Knex.QueryBuilder {
    const terms = parseSearch(search);
    if (dialectOf(db) === 'mysql') return findingWordRepository.whereTerms(q, db, tenantId, terms);
    return q.whereRaw(`${drive ? '' : '+'}findings.rowid in (select rowid from findings_fts where findings_fts match ?)`, [fts5Expression(terms, tenantId)]);
  },

  /** How many of the tenant's findings match, counted in the index alone: any search on SQLite, one word or prefix on MariaDB; otherwise null. */
  async count(db: Queryable, tenantId: string, search: string): Promise<number | null> {
    if (dialectOf(db) === 'mysql') return findingWordRepository.count(db, tenantId, parseSearch(search));
    const row = (await db('findings_fts').whereRaw('findings_fts match ?', [fts5Expression(parseSearch(search), tenantId)]).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /**
   * Checks the index against the findings: SQLite with FTS5's integrity-check (which also
   * catches rowids renumbered by a VACUUM), MariaDB by comparing every finding's words;
   * with `repair`, rebuilds what differs (the FTS5 index whole, MariaDB's per finding).
   */
  async check(db: Db, repair: boolean): Promise<SearchIndexCheck> {
    if (dialectOf(db) === 'mysql') {
      const differing = await findingWordRepository.check(db, repair);
      return { consistent: differing === 0, rebuilt: differing > 0 && repair };
    }
    let consistent = true;
    try {
      await db.raw("insert into findings_fts(findings_fts, rank) values ('integrity-check', 1)");
    } catch (err) {
      if (!/corrupt/i.test(String((err as Error).message) + String((err as { code?: string }).code))) throw err;
      consistent = false;
    }
    if (!consistent && repair) await db.raw("insert into findings_fts(findings_fts) values ('rebuild')");
    return { consistent, rebuilt: !consistent && repair };
  },
};
