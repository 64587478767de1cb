import type { Knex } from 'knex';
import { dialectOf } from './create-db.ts';
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

async function latest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/**
 * Runs pending migrations. Processes starting together on one MariaDB (a multi-instance
 * deployment) wait for each other on a named lock of that database: knex's own lock
 * table fails the losers instead of waiting ("already locked", or "table exists" while
 * it is being created). The lock is the connection's, so a process that dies frees it.
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  if (dialectOf(db) !== 'mysql') return latest(db);
  const connection = await db.client.acquireConnection();
  try {
    const lockName = db.raw("SHA1(CONCAT('rampart-migrate:', DATABASE()))");
    const [[row]] = (await db.raw('SELECT GET_LOCK(?, ?) AS got', [lockName, LOCK_WAIT_SECONDS]).connection(connection)) as [[{ got: number | null }]];
    if (row.got !== 1) throw new Error(`Another process has been migrating this database for ${LOCK_WAIT_SECONDS} s; start again once it is done.`);
    try {
      return await latest(db);
    } finally {
      await db.raw('SELECT RELEASE_LOCK(?)', [lockName]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

const LOCK_WAIT_SECONDS = 600;

/** Where the database stands against the migrations this code knows. */
export interface MigrationStatus {
  applied: number;
  /** Known here, not applied: this code would use tables or columns that are not there. */
  pending: string[];
  /** Applied, not known here: the database was migrated by a newer version. */
  unknown: string[];
}

/** Reads knex's record of applied migrations (without creating it, unlike knex's own list). */
export async function migrationStatus(db: Knex): Promise<MigrationStatus> {
  const applied = (await db.schema.hasTable(MIGRATIONS_TABLE)) ? ((await db(MIGRATIONS_TABLE).pluck('name')) as string[]) : [];
  const known = migrations.map((m) => m.name);
  return { applied: applied.length, pending: known.filter((n) => !applied.includes(n)), unknown: applied.filter((n) => !known.includes(n)) };
}

const MIGRATIONS_TABLE = 'knex_migrations';
