import type { Command } from 'commander';
import type { Db } from '../../core/db/create-db.ts';
import { configuredDatabase } from '../configured-database.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { print, type OutputOptions } from '../output.ts';

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const { migrationSource } = await import('../../core/db/migrate.ts');
  const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], Array<{ name: string } | string>];
  return pending.map((m) => (typeof m === 'string' ? m : m.name));
}

/** `rampart migrate [--status]`: on the database the configuration names, like the server at start-up. */
export function migrateCommand(program: Command, output: () => OutputOptions): void {
  program
    .command('migrate')
    .description('apply pending database migrations (the database of the configuration: config/, DATABASE_URL, RAMPART__…)')
    .option('--status', 'only list applied and pending migrations, change nothing')
    .action(async (options: { status?: boolean }) => {
      const { migrateLatest, migrationSource } = await import('../../core/db/migrate.ts');
      const db = await configuredDatabase();
      try {
        if (options.status) {
          const [done] = (await db.migrate.list({ migrationSource }).catch((err: Error) => {
            throw new CliError(`Cannot read the database: ${err.message}`, EXIT.unavailable);
          })) as [Array<{ name: string } | string>, unknown];
          const pending = await pendingMigrations(db);
          const applied = done.map((m) => (typeof m === 'string' ? m : m.name));
          if (output().json) print(output(), { applied, pending });
          else print(output(), [...applied.map((name) => ({ migration: name, state: 'applied' })), ...pending.map((name) => ({ migration: name, state: 'pending' }))]);
          return;
        }
        let applied: string[];
        try {
          applied = await migrateLatest(db);
        } catch (err) {
          throw new CliError(`Migration failed: ${(err as Error).message}`, EXIT.unavailable);
        }
        if (output().json) print(output(), { applied });
        else process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
      } finally {
        await db.destroy();
      }
    });
}
