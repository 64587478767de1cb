import type { Command } from 'commander';
import { configuredDatabase } from '../configured-database.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { note, print, type OutputOptions } from '../output.ts';

/**
 * `rampart admin findings recount [--tenant ID] [--repair]`: checks the maintained finding
 * counters (stats, list totals) and the search index against the rows, on the
 * database the configuration names. Exit 0 when they agree (or were repaired), 1 when
 * something differs and --repair was not given. docs/operations.md explains when to run it.
 */
export function findingsRecountCommand(admin: Command, output: () => OutputOptions): void {
  admin.command('findings').description('finding counters and search index')
    .command('recount').description('recompute the finding counters from the rows and compare (works on the database, like --direct)')
    .option('--tenant <tenant-id>', 'only this tenant (default: every tenant)')
    .option('--repair', 'replace differing counters with the recount and rebuild a damaged search index')
    .action(async (o: { tenant?: string; repair?: boolean }) => {
      const { pendingMigrations } = await import('./migrate-command.ts');
      const { recountFindings } = await import('../../core/findings/finding-recount.ts');
      const db = await configuredDatabase();
      try {
        const pending = await pendingMigrations(db).catch((err: Error) => {
          throw new CliError(`Cannot use the database: ${err.message}`, EXIT.unavailable);
        });
        if (pending.length) throw new CliError(`The database needs ${pending.length} migration(s) first: run \`rampart migrate\`.`, EXIT.unavailable);
        const report = await recountFindings(db, { ...(o.tenant ? { tenantId: o.tenant } : {}), repair: Boolean(o.repair) });
        const searchBad = !report.search.consistent && !report.search.rebuilt;
        if (output().json) {
          print(output(), report);
        } else {
          const rows = report.tenants.flatMap((t) => t.differences.map((d) => ({ tenant: t.tenantId, ...d, repaired: t.repaired })));
          if (rows.length) print(output(), rows, ['tenant', 'counter', 'stored', 'counted', 'repaired']);
          note(`${report.checked} tenant(s) checked, ${report.inconsistent} with differences${o.repair && report.inconsistent ? ' (repaired)' : ''}; `
            + `search index: ${report.search.consistent ? 'consistent' : report.search.rebuilt ? 'rebuilt' : 'DAMAGED'}`);
        }
        if ((report.inconsistent && !o.repair) || searchBad) process.exitCode = EXIT.failure;
      } finally {
        await db.destroy();
      }
    });
}
