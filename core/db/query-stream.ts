import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { dialectOf, type Db } from './create-db.ts';

// The parts of better-sqlite3 used here (the package ships no typings; knex loads it).
interface SqliteStatement {
  iterate(...params: unknown[]): IterableIterator<Record<string, unknown>>;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  close(): void;
}
type SqliteDriver = new (filename: string, options: { readonly: boolean; fileMustExist: boolean }) => SqliteConnection;

/**
 * Streams the rows of a SELECT with flat memory, as an object-mode Readable with
 * backpressure (rows are pulled only as fast as the consumer writes them).
 *
 * - MariaDB/MySQL: knex `.stream()` (mysql2 streams rows off the socket).
 * - SQLite: knex's `.stream()` for SQLite reads the WHOLE result into an array
 *   first (knex/lib/dialects/sqlite3 `_stream` calls `_query`), and the app's pool
 *   has a single connection that a long read would hold. So the compiled query runs
 *   on a separate read-only better-sqlite3 connection to the same file with
 *   `iterate()`: true row-by-row reads from one WAL snapshot, while the app's own
 *   connection keeps serving requests and writes. (An in-memory database cannot be
 *   opened twice; it falls back to knex, buffered.)
 */
export function streamRows<Row = Record<string, unknown>>(db: Db, query: Knex.QueryBuilder): Readable {
  if (dialectOf(db) === 'mysql') return query.stream({ highWaterMark: 256 } as Record<string, unknown>) as unknown as Readable;
  const client = db.client as { driver: SqliteDriver; connectionSettings: { filename: string } };
  const filename = client.connectionSettings.filename;
  if (filename === ':memory:') return query.stream() as unknown as Readable;
  const { sql, bindings } = query.toSQL().toNative();
  function* rows(): Generator<Row> {
    const conn = new client.driver(filename, { readonly: true, fileMustExist: true });
    try {
      // SQLite has no boolean or bigint binding for knex's `true`/`false`: map like knex does.
      const params = bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b));
      for (const row of conn.prepare(sql).iterate(...params)) yield row as Row;
    } finally {
      // Runs on normal end and when the consumer destroys the stream (generator return()).
      conn.close();
    }
  }
  return Readable.from(rows(), { objectMode: true, highWaterMark: 256 });
}
