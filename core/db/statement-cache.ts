/** The parts of a better-sqlite3 statement used here. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  safeIntegers(on?: boolean): SqliteStatement;
}

/** Statements kept per connection; enough for every query text the app builds, bounded for the rest. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * Prepared statements of one better-sqlite3 connection, by SQL text, least recently used
 * dropped beyond `size`. Preparing is SQLite's parse and plan, and cost more than running
 * a single-row query. A statement is reused only by `all`/`get`/`run`, which finish
 * before they return, so no two users ever hold one statement at the same time (an
 * `iterate` must prepare its own). The bound keeps query texts that vary in length
 * (`IN (?, ?, …)` lists, multi-row inserts) from piling up. Schema changes need nothing
 * here: SQLite prepares a statement again by itself when the schema it was made for changed.
 */
export class StatementCache {
  readonly #connection: { prepare(sql: string): SqliteStatement };
  readonly #size: number;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(connection: { prepare(sql: string): SqliteStatement }, size = STATEMENT_CACHE_SIZE) {
    this.#connection = connection;
    this.#size = size;
  }

  get size(): number {
    return this.#statements.size;
  }

  get(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement) {
      // Map order is insertion order: moving a hit to the end keeps the oldest first.
      this.#statements.delete(sql);
    } else {
      statement = this.#connection.prepare(sql);
      if (this.#statements.size >= this.#size) this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, statement);
    return statement;
  }
}
