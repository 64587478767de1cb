import { createRequire } from 'node:module';
import type { Knex } from 'knex';

// knex's own better-sqlite3 client, extended rather than copied (knex exports no path
// for it, so it is required by file).
const require = createRequire(import.meta.url);
const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: Knex.Config) => Knex.Client;

type TransactionLike = { query(conn: unknown, sql: string): Promise<unknown>; begin(conn: unknown): Promise<unknown> };

/**
 * The better-sqlite3 client with every transaction opened by `BEGIN IMMEDIATE`. knex opens
 * them with a plain (deferred) `BEGIN`: such a transaction reads under a snapshot and, when
 * another process has written meanwhile, its first write fails at once with SQLITE_BUSY or
 * SQLITE_BUSY_SNAPSHOT — the busy timeout cannot help, since waiting would not make the
 * snapshot current. With several processes on one file (the roles, agents, workers) that
 * was a 500 under load. IMMEDIATE takes the write lock up front, so a second writer waits
 * (busy_timeout) instead of failing. Nested transactions still use savepoints.
 */
export class ImmediateSqliteClient extends BetterSqlite3Client {
  override transaction(container: unknown, config: unknown, outerTx: unknown): Knex.Transaction {
    const trx = super.transaction(container, config, outerTx);
    const raw = trx as unknown as TransactionLike;
    raw.begin = (conn: unknown) => raw.query(conn, 'BEGIN IMMEDIATE;');
    return trx;
  }
}
