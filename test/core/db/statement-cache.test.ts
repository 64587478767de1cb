import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../../core/db/create-db.ts';
import { StatementCache, type SqliteStatement } from '../../../core/db/statement-cache.ts';

/** A stand-in connection that counts prepares. */
function countingConnection() {
  const prepared: string[] = [];
  return {
    prepared,
    prepare(sql: string): SqliteStatement {
      prepared.push(sql);
      return { sql } as unknown as SqliteStatement;
    },
  };
}

test('a statement is prepared once per SQL text and handed out again', (t) => {
  const conn = countingConnection();
  const cache = new StatementCache(conn, 3);
  const a = cache.get('select 1');
  t.is(cache.get('select 1'), a);
  cache.get('select 2');
  t.deepEqual(conn.prepared, ['select 1', 'select 2']);
});

test('beyond its size the least recently used statement is dropped', (t) => {
  const conn = countingConnection();
  const cache = new StatementCache(conn, 2);
  cache.get('a');
  cache.get('b');
  cache.get('a'); // a is now the most recent
  cache.get('c'); // drops b
  t.is(cache.size, 2);
  cache.get('a');
  cache.get('b');
  t.deepEqual(conn.prepared, ['a', 'b', 'c', 'b']);
});

test('knex on SQLite: cached statements survive schema changes, failures and varying IN lists', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-stmt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = createDb(`sqlite:${join(dir, 'x.db')}`);
  t.teardown(() => db.destroy());
  await db.schema.createTable('items', (c) => {
    c.integer('id').primary();
    c.string('name').notNullable().unique();
  });
  await db('items').insert([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  t.deepEqual(await db('items').where('id', 1).select('name'), [{ name: 'a' }]);
  // A constraint failure leaves the shared insert statement usable.
  const failed = await db('items').insert({ id: 3, name: 'a' }).then(() => null, (err: { code?: string }) => err);
  t.is(failed?.code, 'SQLITE_CONSTRAINT_UNIQUE');
  await db('items').insert({ id: 3, name: 'c' });
  // The schema changes under a cached statement: SQLite prepares it again by itself.
  await db.schema.alterTable('items', (c) => c.string('extra').nullable());
  t.deepEqual(await db('items').where('id', 1).select('name'), [{ name: 'a' }]);
  t.deepEqual(await db('items').where('id', 1).first(), { id: 1, name: 'a', extra: null });
  for (let n = 1; n <= 3; n++) t.is((await db('items').whereIn('id', [1, 2, 3].slice(0, n))).length, n);
  // Transactions (BEGIN IMMEDIATE, savepoints) still commit and roll back.
  await db.transaction(async (trx) => {
    await trx('items').insert({ id: 4, name: 'd' });
    await trx.transaction(async (inner) => {
      await inner('items').insert({ id: 5, name: 'e' });
      throw new Error('roll back the savepoint');
    }).catch(() => undefined);
  });
  t.deepEqual((await db('items').orderBy('id').select('id')).map((r) => r.id), [1, 2, 3, 4]);
});
