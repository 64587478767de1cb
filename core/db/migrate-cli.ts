import { loadConfig } from '../../config/load-config.ts';
import { createDb } from './create-db.ts';
import { migrateLatest } from './migrate.ts';

/** `npm run migrate`: applies pending migrations to the configured database and exits. */
const config = loadConfig();
const db = createDb(config.database.url);
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
} catch (err) {
  console.error(`Migration failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
