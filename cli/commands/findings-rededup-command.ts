import type { Command } from 'commander';
import { configuredDatabase } from '../configured-database.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { note, print, type OutputOptions } from '../output.ts';

const positive = (name: string, max: number) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max || (name === '--batch-size' && n === 0)) throw new CliError(`${name} must be a whole number from ${name === '--batch-size' ? 1 : 0} to ${max}.`, EXIT.usage);
  return n;
};

/**
 * `rampart admin findings rededup [--tenant ID] [--batch-size N] [--pause-ms N] [--restart]`:
 * derives every finding's fingerprint again under the current rules and merges findings
 * that now match across tools (core/findings/finding-rededup.ts), on the configured
 * database. Batched and resumable: a run killed at any point continues where the last
 * committed batch ended; running it again changes nothing. docs/finding-fingerprints.md.
 */
export function findingsRededupCommand(admin: Command, output: () => OutputOptions): void {
  const findings = admin.commands.find((c) => c.name() === 'findings') ?? admin.command('findings');
  findings.command('rededup').description('derive finding fingerprints again and merge what now matches across tools (resumable)')
    .option('--tenant <tenant-id>', 'only this tenant (default: every tenant)')
    .option('--batch-size <n>', 'findings per transaction (1-10000)', positive('--batch-size', 10_000), 500)
    .option('--pause-ms <n>', 'wait between batches, to spare a busy database (0-60000)', positive('--pause-ms', 60_000), 0)
    .option('--restart', 'start over instead of resuming an interrupted run')
    .action(async (o: { tenant?: string; batchSize: number; pauseMs: number; restart?: boolean }) => {
      const { pendingMigrations } = await import('./migrate-command.ts');
      const { rededupFindings } = await import('../../core/findings/finding-rededup.ts');
      const db = await configuredDatabase();
      try {
        const pending = await pendingMigrations(db).catch((err: Error) => {
          throw new CliError(`Cannot use the database: ${err.message}`, EXIT.unavailable);
        });
        if (pending.length) throw new CliError(`The database needs ${pending.length} migration(s) first: run \`rampart migrate\`.`, EXIT.unavailable);
        const report = await rededupFindings(db, {
          ...(o.tenant ? { tenantId: o.tenant } : {}), batchSize: o.batchSize, pauseMs: o.pauseMs, restart: Boolean(o.restart),
          // One line per committed batch on standard error: progress for people, and for the test that kills it.
          onBatch: (p) => process.stderr.write(`batch committed: ${p.findings} finding(s) read, ${p.keysAdded} key(s) added, ${p.merged} merged, after ${p.afterId || '-'}\n`),
        });
        if (output().json) print(output(), report);
        else note(`${report.resumed ? 'resumed; ' : ''}${report.findings} finding(s) read, ${report.keysAdded} key(s) added, ${report.merged} finding(s) merged`);
      } finally {
        await db.destroy();
      }
    });
}
