import { readFileSync } from 'node:fs';
// The one import of an engine piece: the entry point wires the isolated-vm sandbox in (it
// imports only the plugin contract); the rest of the agent sees it as the contract's Sandbox.
import { createSandbox } from '../core/sandbox/sandbox.ts';
import { createAgentLog } from './agent-log.ts';
import { AgentOptionsError, parseAgentOptions, tokenFileIsShared, USAGE } from './agent-options.ts';
import { RampartAgent } from './rampart-agent.ts';
import { RampartClient } from './rampart-client.ts';

/**
 * `npm run agent -- --url <rampart url> [--token-file FILE] …`: the on-site execution
 * agent (agent/README.md). The token never reaches the log, and a token given on the
 * command line is wiped from the visible process arguments at once.
 */
const log = createAgentLog();
const argv = process.argv.slice(2);
// Always, first: on Linux this overwrites the memory /proc/<pid>/cmdline (and so ps) reads,
// so a token given with --token (or --token=…) stops being visible to other users.
process.title = 'rampart-agent';
let options;
try {
  options = parseAgentOptions(argv, process.env);
} catch (err) {
  if (!(err instanceof AgentOptionsError)) throw err;
  process.stderr.write(`${err.message}\n${USAGE}\n`);
  process.exit(2);
}
// Executables get a minimal environment anyway; this keeps the token out of anything else we start.
delete process.env.RAMPART_AGENT_TOKEN;
if (options.tokenSource === 'argv') {
  log('warn', 'the token was given with --token: other users could read it in the process list until start-up ended; use RAMPART_AGENT_TOKEN or --token-file instead');
}
const tokenFile = argv[argv.indexOf('--token-file') + 1];
if (options.tokenSource === 'file' && tokenFile && tokenFileIsShared(tokenFile)) {
  log('warn', 'the token file is readable by other users: chmod 600 it', { file: tokenFile });
}
const ca = options.ca ? readFileSync(options.ca, 'utf8') : null;
const client = new RampartClient(options.url, options.token, ca);
const agent = new RampartAgent(options, client, log, () => createSandbox());
process.on('SIGTERM', () => agent.stop());
process.on('SIGINT', () => agent.stop());
process.exitCode = await agent.run();
