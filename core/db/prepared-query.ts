import type { Knex } from 'knex';
import { dialectOf, type Queryable } from './create-db.ts';
import { inlineLimit } from './inline-limit.ts';
import { objectRows } from './object-rows.ts';
import { ImmediateSqliteClient, sqliteBindings } from './sqlite-client.ts';
import type { SqliteStatement } from './statement-cache.ts';

/** A value a prepared query takes: bound as is, never spliced into the SQL. */
export type Param = string | number | null;

interface Compiled {
  sql: string;
  /** Per binding: the index of the caller's parameter, or -1 for a constant knex put there (`limit 1`). */
  params: number[];
  constants: unknown[];
  /** How this database runs it: a statement of the SQLite read connection, mysql2 `execute`, or knex's pool. */
  via: { kind: 'sqlite'; statement: SqliteStatement } | { kind: 'mysql' } | { kind: 'pool' };
}

interface MysqlConnection {
  execute(sql: string, values: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
}
interface PooledClient {
  acquireConnection(): Promise<MysqlConnection>;
  releaseConnection(connection: MysqlConnection): Promise<void>;
}

const MARK = '\u0000rampart-param-';

/**
 * A query on a request's hot path, built with knex once per database and then run as a
 * prepared statement: knex's builder and compiler (≈ 14 % of an API request's CPU
 * before) run once, not per call. SQLite: a statement prepared once on the read connection
 * (ImmediateSqliteClient.reader), run synchronously. MariaDB: mysql2 `execute` on a
 * pooled connection (a server-side prepared statement, kept per connection by mysql2).
 *
 * `build` receives the parameters and must pass each one straight to knex as a value
 * (`.where('id', id)`), so that it ends up a binding; scalar parameters only. Inside a
 * transaction the query is built and run by knex as usual, on the transaction's
 * connection: a prepared query never reads around a transaction it is part of.
 * Reads only: the SQLite read connection refuses writes.
 */
export class PreparedQuery<P extends Param[]> {
  readonly #build: (db: Queryable, ...params: P) => Knex.QueryBuilder;
  readonly #compiled = new WeakMap<object, Compiled>();

  constructor(build: (db: Queryable, ...params: P) => Knex.QueryBuilder) {
    this.#build = build;
  }

  /** Every row. */
  async all<Row>(db: Queryable, ...params: P): Promise<Row[]> {
    if (db.isTransaction) return (await this.#build(db, ...params)) as Row[];
    return (await this.#run(db, params, false)) as Row[];
  }

  /** The first row, or undefined (knex `.first()` semantics: build the query with `.first()`). */
  async first<Row>(db: Queryable, ...params: P): Promise<Row | undefined> {
    if (db.isTransaction) return (await this.#build(db, ...params)) as Row | undefined;
    return (await this.#run(db, params, true)) as Row | undefined;
  }

  /** The SQL for this database's dialect and where each binding comes from (compiled on first use). */
  #compile(db: Queryable, arity: number): Compiled {
    const marks = Array.from({ length: arity }, (_, i) => `${MARK}${i}\u0000`);
    const native = this.#build(db, ...(marks as P)).toSQL().toNative();
    const { sql, bindings } = dialectOf(db) === 'mysql' ? native : inlineLimit(native.sql, native.bindings);
    if (sql.includes(MARK)) throw new Error(`Prepared query: a parameter was spliced into the SQL instead of bound: ${sql}`);
    const params = bindings.map((b) => (typeof b === 'string' && b.startsWith(MARK) ? marks.indexOf(b) : -1));
    const missing = marks.findIndex((_, i) => !params.includes(i));
    if (missing >= 0) throw new Error(`Prepared query: parameter ${missing} is not a binding of ${sql}`);
    const constants = sqliteBindings(bindings);
    let via: Compiled['via'] = { kind: 'pool' };
    if (dialectOf(db) === 'mysql') via = { kind: 'mysql' };
    else {
      const reader = db.client instanceof ImmediateSqliteClient ? db.client.reader() : null;
      // In-memory SQLite has one connection only: through knex's pool (its statements are cached too).
      if (reader) via = { kind: 'sqlite', statement: reader.prepare(sql) };
    }
    return { sql, params, constants, via };
  }

  async #run(db: Queryable, params: P, first: boolean): Promise<unknown> {
    let compiled = this.#compiled.get(db.client);
    if (!compiled) this.#compiled.set(db.client, (compiled = this.#compile(db, params.length)));
    const { sql, via } = compiled;
    const values = new Array<unknown>(compiled.params.length);
    for (let i = 0; i < values.length; i++) {
      const at = compiled.params[i]!;
      const value = at < 0 ? compiled.constants[i] : params[at];
      if (value === undefined) throw new Error(`Undefined binding in prepared query: ${sql}`);
      values[i] = value;
    }
    if (via.kind === 'sqlite') return first ? objectRows.get(via.statement, values) : objectRows.all(via.statement, values);
    const rows = (via.kind === 'mysql' ? await execute(db.client as unknown as PooledClient, sql, values) : await db.raw(sql, values as Knex.RawBinding[])) as unknown[];
    return first ? rows[0] : rows;
  }
}

async function execute(client: PooledClient, sql: string, values: unknown[]): Promise<unknown> {
  const connection = await client.acquireConnection();
  try {
    return await new Promise((resolve, reject) => connection.execute(sql, values, (err, rows) => (err ? reject(err) : resolve(rows))));
  } finally {
    await client.releaseConnection(connection);
  }
}

/** `const byId = preparedQuery((db, tenantId: string, id: string) => db('t').where({tenant_id: tenantId, id}).first())`. */
export function preparedQuery<P extends Param[]>(build: (db: Queryable, ...params: P) => Knex.QueryBuilder): PreparedQuery<P> {
  return new PreparedQuery(build);
}
