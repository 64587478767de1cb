import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { USAGE } from '../../agent/agent-options.ts';
import { EXIT } from '../exit-codes.ts';

const AGENT = fileURLToPath(new URL('../../agent/main.ts', import.meta.url));

/**
 * `rampart agent …`: the on-site execution agent (agent/README.md), run as its own process
 * exactly like `npm run agent` (its arguments passed through, signals forwarded, its exit
 * code returned). Its token comes from RAMPART_AGENT_TOKEN or --token-file, as documented there.
 */
export function agentCommand(program: Command): void {
  program
    .command('agent')
    .description('run the on-site execution agent (arguments as in agent/README.md, e.g. --url, --token-file)')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]', 'the agent\'s own arguments (`rampart agent --help` lists them)')
    .action(async (args: string[]) => {
      if (args.includes('--help') || args.includes('-h')) {
        process.stdout.write(`${USAGE.replace('npm run agent --', 'rampart agent')}\n`);
        return;
      }
      // The agent runs scripts in isolated-vm, which needs --no-node-snapshot on Node 20, as `npm run agent` passes.
      const child = spawn(process.execPath, ['--no-node-snapshot', '--import', import.meta.resolve('tsx'), AGENT, ...args], { stdio: 'inherit' });
      const forward = (signal: NodeJS.Signals) => child.kill(signal);
      process.on('SIGTERM', forward);
      process.on('SIGINT', forward);
      const code = await new Promise<number>((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 128 + (signal === 'SIGTERM' ? 15 : 2) : EXIT.failure))));
      process.exitCode = code;
    });
}
