import test from 'ava';
import { createDb, dialectOf, type Db } from '../../../core/db/create-db.ts';
import { preparedQuery } from '../../../core/db/prepared-query.ts';
import { ImmediateSqliteClient } from '../../../core/db/sqlite-client.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

let database: TestDatabase;
let db: Db;

test.before(async () => {
  database = await createTestDatabase();
  db = createDb(database.url);
  await db.schema.createTable('things', (c) => {
    c.string('tenant_id', 40).notNullable();
    c.string('id', 40).notNullable();
    c.string('name', 100).notNullable();
    c.bigInteger('updated_at').notNullable();
    c.boolean('flag').notNullable();
    c.text('doc').nullable();
    c.primary(['tenant_id', 'id']);
  });
  await db('things').insert([
    { tenant_id: 'ten_a', id: 'one', name: 'first', updated_at: 1_700_000_000_123, flag: true, doc: '{"k":[1,2]}' },
    { tenant_id: 'ten_a', id: 'two', name: 'second', updated_at: 1_700_000_000_456, flag: false, doc: null },
    { tenant_id: 'ten_b', id: 'one', name: 'other tenant', updated_at: 1, flag: false, doc: null },
  ]);
});
test.after.always(async () => {
  await db?.destroy();
  await database?.drop();
});

const byId = preparedQuery((q, tenantId: string, id: string) => q('things').where({ tenant_id: tenantId, id }).first());
const ofTenant = preparedQuery((q, tenantId: string) => q('things').where('tenant_id', tenantId).orderBy('id').select('id', 'name', 'updated_at'));

test.serial('rows are exactly what knex returns for the same query, on every call', async (t) => {
  for (let i = 0; i < 3; i++) {
    t.deepEqual(await byId.first(db, 'ten_a', 'one'), await db('things').where({ tenant_id: 'ten_a', id: 'one' }).first());
    t.deepEqual(await ofTenant.all(db, 'ten_a'), await db('things').where('tenant_id', 'ten_a').orderBy('id').select('id', 'name', 'updated_at'));
  }
  const row = await byId.first<{ updated_at: number; name: string }>(db, 'ten_a', 'one');
  t.is(Number(row!.updated_at), 1_700_000_000_123);
  t.is(await byId.first(db, 'ten_a', 'nope'), undefined);
  t.deepEqual(await ofTenant.all(db, 'ten_none'), []);
});

test.serial('parameters are bound, never spliced: values that look like SQL are only values', async (t) => {
  t.is(await byId.first(db, "ten_a' OR '1'='1", 'one'), undefined);
  t.is(await byId.first(db, 'ten_a', "one' --"), undefined);
  t.is((await byId.first<{ name: string }>(db, 'ten_b', 'one'))!.name, 'other tenant', 'the tenant filter is a parameter like any other');
});

test.serial('a parameter the builder does not bind is refused when the query is compiled', async (t) => {
  const spliced = preparedQuery((q, id: string) => q('things').whereRaw(`id = '${id}'`).first());
  await t.throwsAsync(() => spliced.first(db, 'one'), { message: /spliced into the SQL/ });
  const unused = preparedQuery((q, _id: string) => q('things').where('id', 'one').first());
  await t.throwsAsync(() => unused.first(db, 'one'), { message: /parameter 0 is not a binding/ });
});

test.serial('inside a transaction the query runs on the transaction: it sees the transaction\'s own writes', async (t) => {
  await db.transaction(async (trx) => {
    await trx('things').where({ tenant_id: 'ten_a', id: 'two' }).update({ name: 'renamed in trx' });
    t.is((await byId.first<{ name: string }>(trx, 'ten_a', 'two'))!.name, 'renamed in trx');
    await trx.rollback();
  }).catch(() => undefined);
  t.is((await byId.first<{ name: string }>(db, 'ten_a', 'two'))!.name, 'second', 'rolled back: nothing of it is seen');
});

test.serial('outside a transaction only committed data is seen, also while another transaction is open', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const trx = db.transaction(async (tx) => {
    await tx('things').where({ tenant_id: 'ten_a', id: 'one' }).update({ name: 'uncommitted' });
    written();
    await held;
  });
  await wrote;
  // SQLite: the read connection answers at once (the one pooled connection is the
  // transaction's); MariaDB: another pooled connection. Either way: the committed row.
  t.is((await byId.first<{ name: string }>(db, 'ten_a', 'one'))!.name, 'first');
  release();
  await trx;
  t.is((await byId.first<{ name: string }>(db, 'ten_a', 'one'))!.name, 'uncommitted', 'committed now, so seen at once');
  await db('things').where({ tenant_id: 'ten_a', id: 'one' }).update({ name: 'first' });
});

test.serial('SQLite: the read connection refuses writes, and an in-memory database is read through the pool', async (t) => {
  if (dialectOf(db) !== 'sqlite') return t.pass('SQLite only');
  const reader = (db.client as unknown as ImmediateSqliteClient).reader()!;
  const refused = (() => {
    try {
      reader.prepare("update things set name = 'x'").run();
      return null;
    } catch (err) {
      return err as { code?: string };
    }
  })();
  t.is(refused?.code, 'SQLITE_READONLY');
  const memory = createDb('sqlite::memory:');
  t.teardown(() => memory.destroy());
  t.is((memory.client as unknown as ImmediateSqliteClient).reader(), null);
  await memory.schema.createTable('things', (c) => {
    c.string('tenant_id').notNullable();
    c.string('id').notNullable();
  });
  await memory('things').insert({ tenant_id: 'ten_m', id: 'x' });
  t.deepEqual(await byId.first(memory, 'ten_m', 'x'), { tenant_id: 'ten_m', id: 'x' });
  t.is(await byId.first(memory, 'ten_m', 'y'), undefined);
});

test.serial('SQLite: the read connection is closed with the database', async (t) => {
  if (!database.url.startsWith('sqlite:')) return t.pass('SQLite only');
  const other = createDb(database.url);
  await byId.first(other, 'ten_a', 'one');
  const reader = (other.client as unknown as ImmediateSqliteClient).reader()!;
  await other.destroy();
  t.false((reader as unknown as { open: boolean }).open);
});
