import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface AgentOptions {
  url: string;
  token: string;
  /** Where the token came from: `--token` is visible to other users in `ps` until we overwrite the title. */
  tokenSource: 'env' | 'file' | 'argv';
  scriptsDir: string;
  concurrency: number;
  ca: string | null;
  /** Long-poll length asked of the server (at most 30). */
  waitSeconds: number;
  /** On SIGTERM, how long running jobs may go on before they are stopped and reported `agent_stopped`. */
  drainMs: number;
  maxOutputBytes: number;
  /** Heap limit of isolates running script jobs. */
  scriptMemoryMb: number;
}

export class AgentOptionsError extends Error {}

export const USAGE = `usage: npm run agent -- --url <rampart url> [--token-file FILE] [--scripts-dir DIR] [--concurrency N] [--ca FILE]
  token: env RAMPART_AGENT_TOKEN or --token-file FILE (recommended); --token TOKEN works but is visible in ps until start-up ends
  --scripts-dir DIR      executables jobs may name (default ./agent-scripts)
  --concurrency N        jobs run at once (default 1)
  --ca FILE              PEM CA certificate(s) to trust for Rampart's HTTPS
  --wait-seconds N       long-poll length, 1-30 (default 25)
  --drain-seconds N      on SIGTERM, time running jobs get to finish (default 10)
  --max-output-bytes N   largest stdout kept from an executable (default 1048576)
  --script-memory-mb N   heap limit of script isolates (default 64)`;

function int(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new AgentOptionsError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AgentOptionsError(`cannot read --token-file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return text.trim();
}

/** Whether a token file can be read by other users (worth a warning). */
export function tokenFileIsShared(file: string): boolean {
  try {
    return (statSync(file).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

export function parseAgentOptions(argv: string[], env: NodeJS.ProcessEnv): AgentOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: Object.fromEntries(['url', 'token', 'token-file', 'scripts-dir', 'concurrency', 'ca', 'wait-seconds', 'drain-seconds', 'max-output-bytes', 'script-memory-mb'].map((n) => [n, { type: 'string' as const }])),
    }) as { values: Record<string, string | undefined> });
  } catch (err) {
    throw new AgentOptionsError((err as Error).message);
  }
  const url = values.url;
  if (!url || !/^https?:\/\/[^/]+/.test(url)) throw new AgentOptionsError('--url must be the Rampart base URL (http:// or https://)');
  const sources = [values.token !== undefined, values['token-file'] !== undefined].filter(Boolean).length;
  if (sources > 1) throw new AgentOptionsError('give the token once: --token or --token-file');
  let token: string | undefined;
  let tokenSource: AgentOptions['tokenSource'] = 'env';
  if (values.token !== undefined) [token, tokenSource] = [values.token, 'argv'];
  else if (values['token-file'] !== undefined) [token, tokenSource] = [readTokenFile(values['token-file']), 'file'];
  else token = env.RAMPART_AGENT_TOKEN;
  if (!token) throw new AgentOptionsError('no agent token: set RAMPART_AGENT_TOKEN or pass --token-file FILE');
  if (!/^[\x21-\x7e]+$/.test(token)) throw new AgentOptionsError('the agent token has unexpected characters');
  return {
    url: url.replace(/\/+$/, ''),
    token,
    tokenSource,
    scriptsDir: values['scripts-dir'] ?? './agent-scripts',
    concurrency: int(values.concurrency, 'concurrency', 1, 64, 1),
    ca: values.ca ?? null,
    waitSeconds: int(values['wait-seconds'], 'wait-seconds', 1, 30, 25),
    drainMs: int(values['drain-seconds'], 'drain-seconds', 0, 3600, 10) * 1000,
    maxOutputBytes: int(values['max-output-bytes'], 'max-output-bytes', 1024, 64 * 1024 * 1024, 1_048_576),
    scriptMemoryMb: int(values['script-memory-mb'], 'script-memory-mb', 8, 1024, 64),
  };
}
