import test from 'ava';
import { inlineLimit } from '../../../core/db/inline-limit.ts';
import { createTestApp } from '../../_helpers/harness/test-app.ts';

test('a bound limit that ends a query is written into it; a bound offset stays bound', (t) => {
  t.deepEqual(inlineLimit('select * from `t` where `a` = ? limit ?', ['x', 1]), { sql: 'select * from `t` where `a` = ? limit 1', bindings: ['x'] });
  t.deepEqual(inlineLimit('select * from `t` where `a` = ? limit ? offset ?', ['x', 20, 40]), { sql: 'select * from `t` where `a` = ? limit 20 offset ?', bindings: ['x', 40] });
});

test('anything but a safe non-negative integer limit at the very end is left alone', (t) => {
  for (const [sql, bindings] of [
    ['select * from `t` where `a` = ? limit ?', ['x', '1']],
    ['select * from `t` where `a` = ? limit ?', ['x', -1]],
    ['select * from `t` where `a` = ? limit ?', ['x', 1.5]],
    ['select * from `t` where `a` = ? limit ?', ['x', 2 ** 60]],
    ['select * from (select 1 limit ?) as `x`', [1]],
    ['select * from `t` where `a` = ?', ['x']],
    ['select * from `t` limit ?', []],
  ] as Array<[string, unknown[]]>) {
    t.deepEqual(inlineLimit(sql, bindings), { sql, bindings }, sql);
  }
});

test('queries with limits and offsets answer the same rows through the rewritten statements', async (t) => {
  const t0 = await createTestApp();
  try {
    const db = t0.ctx.db;
    await db.schema.createTable('inline_limit_probe', (table) => {
      table.integer('n').primary();
    });
    await db('inline_limit_probe').insert(Array.from({ length: 30 }, (_, n) => ({ n })));
    const page = async (limit: number, offset: number) => (await db('inline_limit_probe').orderBy('n').limit(limit).offset(offset)).map((r) => r.n);
    t.deepEqual(await page(5, 0), [0, 1, 2, 3, 4]);
    t.deepEqual(await page(5, 10), [10, 11, 12, 13, 14]);
    t.deepEqual(await page(3, 28), [28, 29]);
    t.deepEqual((await db('inline_limit_probe').where('n', '>', 7).orderBy('n').first())?.n, 8);
    t.deepEqual((await db('inline_limit_probe').where('n', '>', 20).orderBy('n').first())?.n, 21);
    await db.schema.dropTable('inline_limit_probe');
  } finally {
    await t0.close();
  }
});
