import test from 'ava';
import { createDb, dialectOf } from '../../../core/db/create-db.ts';
import { migrationSource } from '../../../core/db/migrate.ts';
import { migrations } from '../../../core/db/migrations/index.ts';
import { runProcess } from '../../_helpers/harness/processes.ts';
import { ROOT, SOURCE_NODE_ARGS } from '../../_helpers/harness/spawn-service.ts';
import { createTestDatabase } from '../../_helpers/harness/test-db.ts';

async function migrateCli(url: string): Promise<{ code: number | null; out: string }> {
  const r = await runProcess(process.execPath, [...SOURCE_NODE_ARGS, 'core/db/migrate-cli.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: url } });
  return { code: r.code, out: r.stdout + r.stderr };
}

test('npm run migrate applies every migration once, then reports up to date', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const first = await migrateCli(db.url);
  t.is(first.code, 0, first.out);
  t.regex(first.out, new RegExp(`Applied: ${migrations.map((m) => m.name).join(', ')}`));
  const second = await migrateCli(db.url);
  t.is(second.code, 0, second.out);
  t.regex(second.out, /Database is up to date/);
});

test('migrations roll back cleanly and apply again', async (t) => {
  const database = await createTestDatabase();
  const db = createDb(database.url);
  t.teardown(async () => {
    await db.destroy();
    await database.drop();
  });
  await db.migrate.latest({ migrationSource });
  await db.migrate.rollback({ migrationSource }, true);
  t.false(await db.schema.hasTable('tenants'));
  await db.migrate.latest({ migrationSource });
  t.true(await db.schema.hasTable('tenants'));
});

test('SQLite runs in WAL mode with foreign keys on', async (t) => {
  const database = await createTestDatabase();
  const db = createDb(database.url);
  t.teardown(async () => {
    await db.destroy();
    await database.drop();
  });
  if (dialectOf(db) !== 'sqlite') {
    const [rows] = (await db.raw('select @@character_set_database as cs, @@collation_database as co')) as [Array<{ cs: string; co: string }>];
    t.is(rows[0]!.cs, 'utf8mb4');
    return;
  }
  const mode = (await db.raw('PRAGMA journal_mode')) as Array<{ journal_mode: string }>;
  t.is(mode[0]!.journal_mode, 'wal');
  const fk = (await db.raw('PRAGMA foreign_keys')) as Array<{ foreign_keys: number }>;
  t.is(fk[0]!.foreign_keys, 1);
});
