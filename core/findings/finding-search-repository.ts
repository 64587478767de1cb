import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import { booleanModeExpression, fts5Expression, parseSearch } from './finding-search.ts';

/** What the search index check found: `null` where the engine keeps its index itself (InnoDB FULLTEXT). */
export interface SearchIndexCheck {
  consistent: boolean | null;
  rebuilt: boolean;
}

/**
 * The index-backed side of `search=` (migration 018): SQLite answers from the FTS5 table
 * findings_fts, MariaDB from the FULLTEXT index over the lower-cased columns. Both get
 * the same parsed terms (finding-search.ts), so they agree on what matches.
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
    if (dialectOf(db) === 'mysql') {
      return q.whereRaw('match(findings.search_title, findings.search_description) against (? in boolean mode)', [booleanModeExpression(terms)]);
    }
    return q.whereRaw(`${drive ? '' : '+'}findings.rowid in (select rowid from findings_fts where findings_fts match ?)`, [fts5Expression(terms, tenantId)]);
  },

  /** SQLite: how many of the tenant's findings match, counted in the FTS5 index alone; null on MariaDB. */
  async count(db: Queryable, tenantId: string, search: string): Promise<number | null> {
    if (dialectOf(db) === 'mysql') return null;
    const row = (await db('findings_fts').whereRaw('findings_fts match ?', [fts5Expression(parseSearch(search), tenantId)]).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /**
   * SQLite: checks the FTS5 index against the findings table (FTS5's integrity-check,
   * which also catches rowids renumbered by a VACUUM) and, with `repair`, rebuilds it.
   */
  async check(db: Queryable, repair: boolean): Promise<SearchIndexCheck> {
    if (dialectOf(db) === 'mysql') return { consistent: null, rebuilt: false };
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
