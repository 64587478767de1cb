import type { Queryable } from './create-db.ts';

/**
 * Rows one multi-row INSERT carries at most. knex writes a multi-row INSERT on SQLite as a
 * compound SELECT (`select ? union all select ?…`), and SQLite refuses more than 500 terms
 * (SQLITE_MAX_COMPOUND_SELECT): a 501-row insert failed outright (issue 25, item 4).
 */
export const MAX_ROWS_PER_INSERT = 500;

/**
 * Bound values one statement carries at most: under SQLite's 32,766 variables and
 * MariaDB's 65,535 placeholders, with room to spare.
 */
export const MAX_VALUES_PER_INSERT = 30_000;

/** The most rows of `columns` values each that one INSERT may carry on both engines. */
export function rowsPerInsert(columns: number): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_VALUES_PER_INSERT / Math.max(1, columns))));
}

/** `rows` cut into batches that each fit one INSERT on both engines (the widest row decides). */
export function insertBatches<T extends object>(rows: readonly T[], most = MAX_ROWS_PER_INSERT): T[][] {
  if (rows.length === 0) return [];
  const columns = rows.reduce((n, r) => Math.max(n, Object.keys(r).length), 0);
  const size = Math.min(most, rowsPerInsert(columns));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * Inserts any number of rows, one statement per batch in order. `write` builds each
 * statement when it needs more than a plain insert (an `onConflict`, a returning clause).
 * Run it inside a transaction when all the rows must land together.
 */
export async function insertBatched<T extends object>(
  db: Queryable,
  table: string,
  rows: readonly T[],
  write: (batch: T[]) => Promise<unknown> = (batch) => db(table).insert(batch),
): Promise<void> {
  for (const batch of insertBatches(rows)) await write(batch);
}
