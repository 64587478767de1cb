import test from 'ava';
import { createDb, dialectOf, type Db } from '../../core/db/create-db.ts';
import { migrateLatest } from '../../core/db/migrate.ts';
import { createTestDatabase } from '../_helpers/harness/test-db.ts';

// Test apps run on copies of a migrated template (test/_helpers/harness/database-template.ts)
// instead of migrating a database each. A copy that lost a foreign key, an index, a default or
// a row of knex's record would make every API test run on a schema production never has, so
// a copy is compared here with a database migrated from scratch, on the engine of the run.

/** Every table's definition as the engine prints it, and its rows (knex's times aside). */
async function describeSchema(db: Db): Promise<Record<string, { definition: string; rows: unknown[] }>> {
  const out: Record<string, { definition: string; rows: unknown[] }> = {};
  if (dialectOf(db) === 'mysql') {
    const [tables] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name')) as [Array<{ name: string }>];
    for (const { name } of tables) {
      const [[row]] = (await db.raw('SHOW CREATE TABLE ??', [name])) as [[Record<string, string>]];
      out[name] = { definition: row!['Create Table']!, rows: await rowsOf(db, name) };
    }
  } else {
    const entries = (await db.raw("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY name")) as Array<{ type: string; name: string; tbl_name: string; sql: string }>;
    for (const e of entries) out[`${e.type} ${e.name}`] = { definition: `${e.tbl_name}: ${e.sql}`, rows: e.type === 'table' ? await rowsOf(db, e.name) : [] };
  }
  return out;
}

async function rowsOf(db: Db, table: string): Promise<unknown[]> {
  const rows = (await db(table).select()) as Array<Record<string, unknown>>;
  return rows.map(({ migration_time: _time, ...rest }) => rest);
}

test('a test database copied from the template is the same, table by table and row by row, as one migrated from scratch', async (t) => {
  const fresh = await createTestDatabase();
  const copied = await createTestDatabase({ migrated: true });
  const freshDb = createDb(fresh.url);
  const copiedDb = createDb(copied.url);
  t.teardown(async () => {
    await Promise.all([freshDb.destroy(), copiedDb.destroy()]);
    await Promise.all([fresh.drop(), copied.drop()]);
  });
  t.true((await migrateLatest(freshDb)).length > 10, 'the fresh database needed every migration');
  t.deepEqual(await migrateLatest(copiedDb), [], 'the copy needs none');
  const expected = await describeSchema(freshDb);
  t.true(Object.keys(expected).length > 40);
  t.true(Object.values(expected).some((e) => /FOREIGN KEY|REFERENCES/i.test(e.definition)), 'the schema has foreign keys to lose');
  t.deepEqual(await describeSchema(copiedDb), expected);
});
