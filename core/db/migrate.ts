import type { Knex } from 'knex';
import { migrations, type Migration } from './migrations/index.ts';

/**
 * Migrations are imported modules rather than files found on disk, so they run the
 * same under tsx, in tests and from a packaged build.
 */
export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => migrations,
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

/** Runs pending migrations; knex's lock table keeps processes starting together from racing. */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
