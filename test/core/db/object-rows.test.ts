import { createRequire } from 'node:module';
import test from 'ava';
import { objectRows } from '../../../core/db/object-rows.ts';
import type { SqliteStatement } from '../../../core/db/statement-cache.ts';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as new (file: string) => { exec(sql: string): void; prepare(sql: string): SqliteStatement };

function database() {
  const db = new Database(':memory:');
  db.exec("create table t (id text primary key, n integer, note text); insert into t values ('a', 1, null), ('b', 2, 'two')");
  return db;
}

test('rows are the objects better-sqlite3 would have built: same keys in the same order, same values', (t) => {
  const db = database();
  const sql = 'select * from t order by id';
  const expected = db.prepare(sql).all();
  const rows = objectRows.all(db.prepare(sql), []);
  t.deepEqual(rows, expected);
  t.deepEqual(rows.map((r) => Object.keys(r)), expected.map((r) => Object.keys(r as object)));
  t.deepEqual(objectRows.get(db.prepare('select * from t where id = ?'), ['b']), { id: 'b', n: 2, note: 'two' });
  t.is(objectRows.get(db.prepare('select * from t where id = ?'), ['zz']), undefined);
  t.deepEqual(objectRows.all(db.prepare('select * from t where id = ?'), ['zz']), []);
});

test('a kept statement answers the same through every call, and a duplicate column name keeps its last value', (t) => {
  const db = database();
  const statement = db.prepare('select id, n as v, note as v from t order by id');
  const expected = db.prepare('select id, n as v, note as v from t order by id').all();
  t.deepEqual(objectRows.all(statement, []), expected);
  t.deepEqual(objectRows.all(statement, []), expected);
  t.deepEqual(objectRows.get(statement, []), expected[0]);
});

test('odd column names are keys, never code; __proto__ falls back to better-sqlite3\'s own rows', (t) => {
  const db = database();
  const odd = db.prepare('select 1 as "a\'b", 2 as "}; throw 1; ({", 3 as "count(*)"');
  t.deepEqual(objectRows.get(odd, []), { "a'b": 1, '}; throw 1; ({': 2, 'count(*)': 3 });
  const proto = objectRows.get(db.prepare('select 1 as "__proto__", 2 as x'), []) as Record<string, unknown>;
  t.is(Object.getPrototypeOf(proto), Object.prototype);
  t.is(proto.x, 2);
});

test('a column added under a kept `select *` is picked up (SQLite re-prepares it after the schema change)', (t) => {
  const db = database();
  const statement = db.prepare('select * from t where id = ?');
  t.deepEqual(objectRows.get(statement, ['a']), { id: 'a', n: 1, note: null });
  db.exec("alter table t add column extra text default 'x'");
  t.deepEqual(objectRows.get(statement, ['a']), { id: 'a', n: 1, note: null, extra: 'x' });
  t.deepEqual(objectRows.all(statement, ['b']), [{ id: 'b', n: 2, note: 'two', extra: 'x' }]);
});
