import type { Knex } from 'knex';
import { migrations, type Migration } from './migrations/index.ts';

/**
 * Runs pending migrations. Migrations are imported modules rather than files found
 * on disk, so they run the same under tsx, in tests and from a packaged build.
 * knex's lock table keeps two processes starting together from racing.
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({
    migrationSource: {
      getMigrations: async () => migrations,
      getMigrationName: (m: Migration) => m.name,
      getMigration: async (m: Migration) => m,
    },
  })) as [number, string[]];
  return applied;
}
