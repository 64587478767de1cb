import type { SqliteStatement } from './statement-cache.ts';

type Row = Record<string, unknown>;
type Build = (values: unknown[]) => Row;

interface RawStatement {
  raw(on?: boolean): unknown;
  columns(): Array<{ name: string }>;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}

/** A reader statement in raw mode and the function that turns its arrays into rows. */
interface Reader {
  statement: RawStatement;
  width: number;
  build: Build;
}

const readers = new WeakMap<object, Reader | null>();

/**
 * An object literal with the statement's column names, compiled once per statement.
 * Names are JSON-quoted, never spliced; a duplicate name keeps its last value, as
 * better-sqlite3 does. Null for `__proto__`, which a literal would treat as the prototype.
 */
function builderFor(names: string[]): Build | null {
  if (names.includes('__proto__')) return null;
  return new Function('v', `return { ${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')} };`) as Build;
}

function readerOf(statement: SqliteStatement): Reader | null {
  let reader = readers.get(statement);
  if (reader !== undefined) return reader;
  const raw = statement as unknown as RawStatement;
  const names = raw.columns().map((c) => c.name);
  const build = builderFor(names);
  reader = build ? { statement: raw, width: names.length, build } : null;
  if (reader) raw.raw(true);
  readers.set(statement, reader);
  return reader;
}

/** The columns changed under a kept statement (SQLite re-prepared it after a schema change): build again. */
function rebuilt(reader: Reader): Reader {
  const names = reader.statement.columns().map((c) => c.name);
  reader.width = names.length;
  reader.build = builderFor(names) ?? ((values) => Object.fromEntries(names.map((n, i) => [n, values[i]])));
  return reader;
}

/**
 * Rows of a reader statement as objects, built in JavaScript from better-sqlite3's raw
 * arrays. better-sqlite3 sets each column by name on a fresh object, looking every name
 * up in V8's string table per row: 7 % of an API request's CPU under load (`perf`), and
 * about half the cost of reading a 23-column row. The statement is switched to raw mode
 * for good, so every user of a kept statement must read it through here.
 */
export const objectRows = {
  all(statement: SqliteStatement, params: unknown[]): Row[] {
    const reader = readerOf(statement);
    if (!reader) return statement.all(params) as Row[];
    const arrays = reader.statement.all(params) as unknown[][];
    if (arrays.length && arrays[0]!.length !== reader.width) rebuilt(reader);
    const rows = new Array<Row>(arrays.length);
    for (let i = 0; i < arrays.length; i++) rows[i] = reader.build(arrays[i]!);
    return rows;
  },

  get(statement: SqliteStatement, params: unknown[]): Row | undefined {
    const reader = readerOf(statement);
    if (!reader) return statement.get(params) as Row | undefined;
    const values = reader.statement.get(params) as unknown[] | undefined;
    if (!values) return undefined;
    if (values.length !== reader.width) rebuilt(reader);
    return reader.build(values);
  },
};
