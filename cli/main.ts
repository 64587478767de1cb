import { Command, CommanderError } from 'commander';
import { VERSION } from '../core/version.ts';
import { adminCommand } from './commands/admin-command.ts';
import { agentCommand } from './commands/agent-command.ts';
import { exportCommand } from './commands/export-command.ts';
import { feedsCommand } from './commands/feeds-command.ts';
import { importCommand } from './commands/import-command.ts';
import { migrateCommand } from './commands/migrate-command.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { report, type OutputOptions } from './output.ts';

/**
 * `rampart`: the command line over Rampart's API (RAMPART_URL, RAMPART_TOKEN) and, for
 * migrations and `admin --direct`, over the configured database. docs/cli.md lists the
 * commands and exit codes.
 */
export async function runCli(argv: string[]): Promise<number> {
  const program = new Command('rampart')
    .description('Rampart command line: admin, migrate, import, export, feeds, agent')
    .version(VERSION, '--version')
    .option('--json', 'machine-readable output on standard output (errors too)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  const output = (): OutputOptions => ({ json: Boolean(program.opts().json) });
  // --url belongs to the API commands, not the program: `rampart agent --url …` is the agent's own option.
  let urlOption: string | undefined;
  program.hook('preAction', (_program, action) => {
    urlOption = (action.optsWithGlobals() as { url?: string }).url;
  });
  const url = (): string | undefined => urlOption;
  adminCommand(program, output, url);
  migrateCommand(program, output);
  importCommand(program, output, url);
  exportCommand(program, output, url);
  feedsCommand(program, output);
  agentCommand(program);
  // Every command exits through here, with the codes of exit-codes.ts.
  for (const cmd of allCommands(program)) cmd.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (err instanceof CliError) {
      report(output(), err);
      return err.exitCode;
    }
    report(output(), new CliError(`unexpected failure: ${(err as Error).stack ?? String(err)}`, EXIT.failure));
    return EXIT.failure;
  }
}

function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap((c) => allCommands(c as Command))];
}
