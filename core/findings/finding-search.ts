import { ValidationError } from '../errors.ts';
import { MAX_WORD, MIN_WORD, wordsOf } from '../domain/search-words.ts';

/** One search term: a word, a word prefix (`word*`) or a phrase (words in a row). */
export interface SearchTerm {
  words: string[];
  prefix: boolean;
}

const MAX_TERMS = 16;

const invalid = (message: string): ValidationError => new ValidationError(message, [{ field: 'search', message }]);

/**
 * Parses the `search` query of GET /api/findings (docs/api.md, "Finding search"):
 * whitespace separates terms, all of which must match (AND); `"…"` is a phrase (its
 * words consecutive, in order); a single word ending in `*` is a prefix; a bare term
 * with other characters (`cross-site`, `10.20.30.40`) is the phrase of its words; any
 * other character only separates words. Case-insensitive. Every word needs 3 to 84
 * characters: MariaDB's index holds no shorter or longer words, so answering them would
 * differ between the engines; such a query, or one without words, is a 400.
 */
export function parseSearch(text: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const add = (words: string[], prefix: boolean) => {
    if (!words.length) return;
    for (const w of words) {
      const length = [...w].length;
      if (length < MIN_WORD) throw invalid(`Search words need at least ${MIN_WORD} characters ("${w}" is shorter); shorter words are not indexed.`);
      if (length > MAX_WORD) throw invalid(`Search words have at most ${MAX_WORD} characters.`);
    }
    terms.push({ words, prefix: prefix && words.length === 1 });
  };
  const pattern = /"([^"]*)"?|(\S+)/g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m[1] !== undefined) {
      add(wordsOf(m[1]), false);
    } else {
      const bare = m[2]!.replace(/"/g, ' ');
      add(wordsOf(bare), /^[\p{L}\p{N}_]+\*+$/u.test(bare));
    }
  }
  if (!terms.length) throw invalid('The search has no words (letters, digits or _).');
  if (terms.length > MAX_TERMS) throw invalid(`A search has at most ${MAX_TERMS} terms.`);
  return terms;
}

/**
 * The FTS5 MATCH expression: every word quoted (so nothing in it is an operator), terms
 * ANDed, within title and description, and within the tenant's rows when one is given.
 */
export function fts5Expression(terms: SearchTerm[], tenantId?: string): string {
  const words = `{title description} : (${terms.map((t) => `"${t.words.join(' ')}"${t.prefix ? ' *' : ''}`).join(' AND ')})`;
  return tenantId === undefined ? words : `tenant_id : "${tenantId.replace(/"/g, '')}" AND ${words}`;
}

const NOT_WORD = '[^\\p{L}\\p{N}_]';

/**
 * A phrase as a MariaDB REGEXP (PCRE) over a lower-cased column: its words in a row with
 * only non-word characters between them, as FTS5 reads a phrase. Words hold letters,
 * digits and `_` only, so none needs escaping.
 */
export function phrasePattern(words: string[]): string {
  return `(^|${NOT_WORD})${words.join(`${NOT_WORD}+`)}(${NOT_WORD}|$)`;
}
