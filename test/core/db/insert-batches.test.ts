import test from 'ava';
import { insertBatched, insertBatches, MAX_ROWS_PER_INSERT, rowsPerInsert } from '../../../core/db/insert-batches.ts';
import { createDb } from '../../../core/db/create-db.ts';
import { createTestDatabase } from '../../_helpers/harness/test-db.ts';

test('batches stay within 500 rows (SQLite compound SELECT) and 30,000 values (both engines\' placeholders)', (t) => {
  t.is(rowsPerInsert(3), MAX_ROWS_PER_INSERT);
  t.is(rowsPerInsert(100), 300);
  t.is(rowsPerInsert(0), MAX_ROWS_PER_INSERT);
  const rows = Array.from({ length: 1201 }, (_, i) => ({ a: i, b: i, c: i }));
  t.deepEqual(insertBatches(rows).map((b) => b.length), [500, 500, 201]);
  t.deepEqual(insertBatches(rows, 200).map((b) => b.length), [200, 200, 200, 200, 200, 200, 1]);
  t.deepEqual(insertBatches(rows).flat(), rows, 'every row, in order');
  t.deepEqual(insertBatches([]), []);
});

test('2,001 rows land in one call on this engine, in order', async (t) => {
  const database = await createTestDatabase();
  const db = createDb(database.url);
  try {
    await db.schema.createTable('batch_probe', (tb) => {
      tb.integer('n').notNullable();
      tb.string('text', 40).notNullable();
    });
    const rows = Array.from({ length: 2001 }, (_, n) => ({ n, text: `row ${n}` }));
    await insertBatched(db, 'batch_probe', rows);
    const back = (await db('batch_probe').orderBy('n')) as Array<{ n: number; text: string }>;
    t.is(back.length, 2001);
    t.deepEqual(back[2000], { n: 2000, text: 'row 2000' });
  } finally {
    await db.destroy();
    await database.drop();
  }
});
