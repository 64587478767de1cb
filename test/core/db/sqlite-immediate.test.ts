import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../../core/db/create-db.ts';
import { ROOT } from '../../_helpers/harness/spawn-service.ts';

// Several processes share one SQLite file (the roles, workers, agents). A transaction that
// reads and then writes must wait for another process's write, not fail with
// SQLITE_BUSY(_SNAPSHOT): knex's deferred BEGIN did, so every transaction begins IMMEDIATE.
test('read-then-write transactions in one process survive a second process writing the same file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-sqlite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'shared.db');
  const db = createDb(`sqlite:${file}`);
  t.teardown(() => db.destroy());
  await db.schema.createTable('counters', (c) => {
    c.integer('id').primary();
    c.integer('n').notNullable();
  });
  await db('counters').insert([{ id: 1, n: 0 }, { id: 2, n: 0 }]);
  // The other process: autocommit writes to another row as fast as it can for 2 s.
  const writer = spawn(process.execPath, ['-e', `
    const D = require('better-sqlite3');
    const db = new D(${JSON.stringify(file)}); db.pragma('busy_timeout = 10000');
    const up = db.prepare('update counters set n = n + 1 where id = 2');
    const end = Date.now() + 2000; let n = 0;
    while (Date.now() < end) { up.run(); n++; }
    process.stdout.write(String(n));
  `], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let written = '';
  writer.stdout!.on('data', (d: Buffer) => (written += d.toString()));
  const exited = new Promise((resolve) => writer.once('exit', resolve));
  let done = 0;
  const errors: string[] = [];
  const end = Date.now() + 1800;
  while (Date.now() < end) {
    try {
      await db.transaction(async (trx) => {
        const row = await trx('counters').where({ id: 1 }).first('n');
        await trx('counters').where({ id: 1 }).update({ n: Number(row.n) + 1 });
      });
      done += 1;
    } catch (err) {
      errors.push((err as { code?: string }).code ?? String(err));
    }
  }
  await exited;
  t.deepEqual([...new Set(errors)], []);
  t.true(done > 10 && Number(written) > 10, `both made progress (${done} transactions, ${written} writes)`);
  t.is(Number((await db('counters').where({ id: 1 }).first('n')).n), done, 'no lost update');
});
