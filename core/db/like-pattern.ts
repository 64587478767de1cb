import type { Knex } from 'knex';

/**
 * Case-insensitive "contains" over columns that hold lower-case text or are lowered
 * in SQL. `!` is the escape character on both engines (a backslash would need
 * different quoting in SQLite and MariaDB), so `%`, `_` and `!` in the term are literal.
 */
export function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
}

/** `(lower(a) LIKE p OR lower(b) LIKE p …)`; pass `lower: false` for already lower-cased columns. */
export function whereContains(q: Knex.QueryBuilder, columns: string[], term: string, lower = true): Knex.QueryBuilder {
  const pattern = containsPattern(term);
  return q.where((w) => {
    for (const column of columns) {
      const expr = lower ? `lower(??) like ? escape '!'` : `?? like ? escape '!'`;
      w.orWhereRaw(expr, [column, pattern]);
    }
  });
}
