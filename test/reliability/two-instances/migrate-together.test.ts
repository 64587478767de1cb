import test from 'ava';
import { createDb } from '../../../core/db/create-db.ts';
import { migrateLatest } from '../../../core/db/migrate.ts';
import { migrations } from '../../../core/db/migrations/index.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';
import { createTestDatabase } from '../../_helpers/harness/test-db.ts';

// Instances of a multi-process deployment start together on a fresh database: each runs
// the migrations on start-up. Before the fix knex's lock made all but one fail
// ("Migration table is already locked") or, when two created the lock row at once,
// made every later start fail the same way.

const url = process.env.DATABASE_URL ?? '';
const mariadb = /^(mysql|mariadb):/.test(url);
if (!mariadb) console.warn('migrate-together: skipped: two instances need a shared MariaDB');
const up = mariadb && (await serviceAvailable('MariaDB', url.replace(/^mariadb:/, 'mysql:')));

(up ? test : test.skip)('processes starting together on a fresh database all migrate it: every migration applied once, none fails', async (t) => {
  const database = await createTestDatabase();
  const clients = Array.from({ length: 4 }, () => createDb(database.url));
  t.teardown(async () => {
    await Promise.all(clients.map((c) => c.destroy()));
    await database.drop();
  });
  const applied = await Promise.all(clients.map((c) => migrateLatest(c)));
  t.deepEqual(applied.flat().sort(), migrations.map((m) => m.name).sort(), 'each migration applied by exactly one of them');
  const rows = await clients[0]!('knex_migrations').select('name');
  t.is(rows.length, migrations.length);
  // A later start still finds the lock free.
  t.deepEqual(await migrateLatest(clients[1]!), []);
});
