import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { StatementCache, type SqliteStatement } from './statement-cache.ts';
import { inlineLimit } from './inline-limit.ts';
import { objectRows } from './object-rows.ts';

// knex's own better-sqlite3 client, extended rather than copied (knex exports no path
// for it, so it is required by file).
const require = createRequire(import.meta.url);
const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: Knex.Config) => Knex.Client;

type TransactionLike = { query(conn: unknown, sql: string): Promise<unknown>; begin(conn: unknown): Promise<unknown> };

/** The parts of a better-sqlite3 connection used here (the package ships no typings). */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  pragma(sql: string): unknown;
  close(): void;
}
type SqliteDriver = new (filename: string, options?: Record<string, unknown>) => SqliteConnection;

interface QueryObject {
  sql: string;
  bindings?: unknown[];
  options?: { safeIntegers?: boolean };
  response?: unknown;
  context?: { lastID: unknown; changes: number };
}

/** Bindings as knex's better-sqlite3 client formats them: dates as epoch ms, booleans as 0/1. */
export function sqliteBindings(bindings: readonly unknown[] | undefined): unknown[] {
  if (!bindings) return [];
  return bindings.map((b) => (b instanceof Date ? b.valueOf() : typeof b === 'boolean' ? Number(b) : b));
}

/**
 * The better-sqlite3 client with every transaction opened by `BEGIN IMMEDIATE`. knex opens
 * them with a plain (deferred) `BEGIN`: such a transaction reads under a snapshot and, when
 * another process has written meanwhile, its first write fails at once with SQLITE_BUSY or
 * SQLITE_BUSY_SNAPSHOT — the busy timeout cannot help, since waiting would not make the
 * snapshot current. With several processes on one file (the roles, agents, workers) that
 * was a 500 under load. IMMEDIATE takes the write lock up front, so a second writer waits
 * (busy_timeout) instead of failing. Nested transactions still use savepoints.
 *
 * Speed-ups, none changing what a query sees (besides these, an integer LIMIT is written
 * into the SQL text, core/db/inline-limit.ts, and a kept statement's rows are built by
 * core/db/object-rows.ts):
 * - statements are prepared once per connection and kept (StatementCache): knex's client
 *   prepares every query anew, and SQLite's parse-and-plan was the largest single cost of
 *   an API request;
 * - `reader()`: a second connection to the same file for the hot single-row reads of
 *   core/db/prepared-query.ts. Each of its statements is its own read transaction (WAL),
 *   so it sees exactly what is committed — like a query on the main connection outside a
 *   transaction — but it never queues behind a write transaction holding the one pooled
 *   connection, and runs synchronously without a pool round.
 */
// Per connection, not per client: knex derives transaction and migration clients from
// this one with Object.create, which private fields (#) do not survive.
const statementsOf = new WeakMap<object, StatementCache>();

export class ImmediateSqliteClient extends BetterSqlite3Client {
  /** See reader(); a plain property for the same reason as statementsOf. */
  rampartReader: SqliteConnection | null = null;

  override transaction(container: unknown, config: unknown, outerTx: unknown): Knex.Transaction {
    const trx = super.transaction(container, config, outerTx);
    const raw = trx as unknown as TransactionLike;
    raw.begin = (conn: unknown) => raw.query(conn, 'BEGIN IMMEDIATE;');
    return trx;
  }

  /** knex's `_query` (dialects/better-sqlite3) with the statement taken from the connection's cache. */
  async _query(connection: SqliteConnection, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty');
    if (!connection) throw new Error('No connection provided');
    const safeIntegers = obj.options?.safeIntegers;
    const { sql, bindings } = inlineLimit(obj.sql, sqliteBindings(obj.bindings));
    let statement: SqliteStatement;
    if (typeof safeIntegers === 'boolean') {
      // A per-call integer mode would leak into the next user of a shared statement.
      statement = connection.prepare(sql);
      statement.safeIntegers(safeIntegers);
    } else {
      let cache = statementsOf.get(connection);
      if (!cache) statementsOf.set(connection, (cache = new StatementCache(connection)));
      statement = cache.get(sql);
    }
    if (statement.reader) {
      obj.response = typeof safeIntegers === 'boolean' ? statement.all(bindings) : objectRows.all(statement, bindings as unknown[]);
      return obj;
    }
    const response = statement.run(bindings) as { lastInsertRowid: unknown; changes: number };
    obj.response = response;
    obj.context = { lastID: response.lastInsertRowid, changes: response.changes };
    return obj;
  }

  /**
   * The read connection, opened on first use; null for an in-memory database (a second
   * connection would be another, empty database). Its users prepare their statements once
   * and keep them.
   */
  reader(): SqliteConnection | null {
    if (this.rampartReader) return this.rampartReader;
    const filename = (this as unknown as { connectionSettings: { filename: string } }).connectionSettings.filename;
    if (filename === ':memory:') return null;
    const Driver = (this as unknown as { driver: SqliteDriver }).driver;
    const connection = new Driver(filename);
    // Not opened read-only: a read-only connection cannot recover or create the WAL index
    // when no other connection has it open. query_only refuses writes all the same.
    connection.pragma('busy_timeout = 10000');
    connection.pragma('query_only = ON');
    this.rampartReader = connection;
    return connection;
  }

  override async destroy(callback?: (err?: unknown) => void): Promise<void> {
    this.rampartReader?.close();
    this.rampartReader = null;
    return (super.destroy as (cb?: unknown) => Promise<void>).call(this, callback);
  }
}
