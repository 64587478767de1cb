import type { Knex } from 'knex';
import type { Db, Queryable } from '../db/create-db.ts';
import { indexedWords } from '../domain/search-words.ts';
import { phrasePattern, type SearchTerm } from './finding-search.ts';

/** What the word index is built from: a finding's id, tenant and text. */
export interface WordSource {
  id: string;
  tenantId: string;
  title: string;
  description: string;
}

const CHUNK = 1000;
// Above every character a word can hold (U+10FFFF is a noncharacter, never a letter or digit):
// `word >= p AND word < p + TOP` is the range of the words starting with p, in utf8mb4_bin's code-point order.
const TOP = '\u{10FFFF}';

const rowsOf = (findings: WordSource[]) => findings.flatMap((f) => indexedWords(f.title, f.description).map((word) => ({ tenant_id: f.tenantId, word, finding_id: f.id })));

/**
 * MariaDB's word index for `search=` (migration 019): one row per distinct word of a
 * finding, keyed (tenant, word, finding). Written by findingRepository.insertMany, read
 * through findingSearchRepository (which answers SQLite from FTS5 instead): nothing here
 * runs on SQLite.
 */
export const findingWordRepository = {
  /** Indexes new findings, in the caller's transaction (their rows go with them by ON DELETE CASCADE). */
  async add(db: Queryable, findings: WordSource[]): Promise<void> {
    const rows = rowsOf(findings);
    for (let i = 0; i < rows.length; i += CHUNK) await db('finding_words').insert(rows.slice(i, i + CHUNK));
  },

  /** The ids of the tenant's findings holding one word (or, with `prefix`, a word starting so). */
  matches(db: Queryable, tenantId: string, word: string, prefix: boolean): Knex.QueryBuilder {
    const q = db('finding_words').where('finding_words.tenant_id', tenantId);
    return prefix ? q.where('word', '>=', word).where('word', '<', word + TOP).distinct('finding_id') : q.where('word', word).select('finding_id');
  },

  /** Narrows a query on `findings` to the rows with every term: each word from the index, a phrase's order by REGEXP. */
  whereTerms(q: Knex.QueryBuilder, db: Queryable, tenantId: string, terms: SearchTerm[]): Knex.QueryBuilder {
    for (const term of terms) {
      for (const word of term.words) q.whereIn('findings.id', this.matches(db, tenantId, word, term.prefix));
      if (term.words.length > 1) {
        const pattern = phrasePattern(term.words);
        q.whereRaw('(findings.search_title regexp ? or findings.search_description regexp ?)', [pattern, pattern]);
      }
    }
    return q;
  },

  /** How many of the tenant's findings a one-word (or one-prefix) search matches, from the index alone; null for other searches. */
  async count(db: Queryable, tenantId: string, terms: SearchTerm[]): Promise<number | null> {
    if (terms.length !== 1 || terms[0]!.words.length !== 1) return null;
    const { words: [word], prefix } = terms[0]!;
    const q = db('finding_words').where('tenant_id', tenantId);
    const row = (await (prefix ? q.where('word', '>=', word!).where('word', '<', word! + TOP).countDistinct({ n: 'finding_id' }) : q.where('word', word!).count({ n: '*' })).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  /**
   * Compares every finding's stored words with its text, a batch of findings at a time;
   * with `repair`, replaces the words of each finding that differs. Returns how many differed.
   */
  async check(db: Db, repair: boolean): Promise<number> {
    let after = '';
    let differing = 0;
    for (;;) {
      const batch = (await db('findings').where('id', '>', after).orderBy('id').limit(CHUNK).select('id', 'tenant_id as tenantId', 'title', 'description')) as WordSource[];
      if (!batch.length) return differing;
      after = batch[batch.length - 1]!.id;
      const stored = new Map<string, string[]>();
      for (const r of (await db('finding_words').whereIn('finding_id', batch.map((f) => f.id)).select('finding_id', 'tenant_id', 'word')) as Array<{ finding_id: string; tenant_id: string; word: string }>) {
        stored.set(r.finding_id, [...(stored.get(r.finding_id) ?? []), `${r.tenant_id} ${r.word}`]);
      }
      const bad = batch.filter((f) => {
        const want = indexedWords(f.title, f.description).map((w) => `${f.tenantId} ${w}`).sort();
        const have = (stored.get(f.id) ?? []).sort();
        return want.length !== have.length || want.some((w, i) => w !== have[i]);
      });
      differing += bad.length;
      if (repair && bad.length) {
        await db.transaction(async (trx) => {
          await trx('finding_words').whereIn('finding_id', bad.map((f) => f.id)).delete();
          await this.add(trx, bad);
        });
      }
    }
  },
};
