/**
 * How finding text is cut into the words a search names: letters, digits and `_`
 * (FTS5 is told `_` is one), lower-cased. Shared by the search parser and by MariaDB's word
 * index (its writes and migration 019), so a query's words and the indexed ones are cut alike.
 */

/** The shortest and longest word a search may name (InnoDB's FULLTEXT limits, kept when MariaDB moved to its own word index). */
export const MIN_WORD = 3;
export const MAX_WORD = 84;

const WORD = /[\p{L}\p{N}_]+/gu;

/** The words of a text, lower-cased, in order (any length). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The distinct words of a finding that MariaDB's word index (finding_words) holds: of a length a search may ask for. */
export function indexedWords(title: string, description: string): string[] {
  const words = new Set<string>();
  for (const w of [...wordsOf(title), ...wordsOf(description)]) {
    const length = [...w].length;
    if (length >= MIN_WORD && length <= MAX_WORD) words.add(w);
  }
  return [...words];
}
