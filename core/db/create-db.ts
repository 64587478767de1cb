import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ImmediateSqliteClient } from './sqlite-client.ts';
import knexPkg from 'knex';
import type { Knex } from 'knex';

export type Db = Knex;
export type Transaction = Knex.Transaction;
export type Queryable = Knex | Transaction;
export type Dialect = 'sqlite' | 'mysql';

/** Which engine a knex instance talks to; the few dialect differences branch on this. */
export function dialectOf(db: Queryable): Dialect {
  // The client's dialect name: the SQLite client is a class of ours (ImmediateSqliteClient), not a string.
  return (db.client as { dialect: string }).dialect === 'mysql' ? 'mysql' : 'sqlite';
}

/** Asks the database a trivial question: resolves once it answers, throws when it does not. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.raw('select 1');
}

/** Parses `mysql://user:pass@host:port/db?opt=…` into mysql2 connection settings. */
export function mysqlConnection(url: string): Knex.MySql2ConnectionConfig {
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
    charset: 'utf8mb4',
    // Timestamps are integers (core/time.ts); keep the session in UTC anyway.
    timezone: 'Z',
    // COUNT/SUM come back as JS numbers rather than strings.
    decimalNumbers: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
  };
}

/** Opens the database named by a `sqlite:<file>` or `mysql://…` URL. */
export function createDb(url: string): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const memory = file === ':memory:';
    if (!memory) mkdirSync(dirname(resolve(file)), { recursive: true });
    return knexPkg({
      client: ImmediateSqliteClient as unknown as typeof knexPkg.Client,
      connection: { filename: memory ? ':memory:' : resolve(file) },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          // WAL lets readers in other processes proceed while one writes; the busy
          // timeout makes a second writer process wait instead of failing at once.
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 10000');
          done(null, conn);
        },
      },
    });
  }
  return knexPkg({
    client: 'mysql2',
    connection: mysqlConnection(url),
    pool: { min: 0, max: 10 },
  });
}
