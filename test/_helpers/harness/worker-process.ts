// A real Rampart worker PROCESS (`npm start -- --role worker`'s entry point and node
// flags) on a test app's database: the one thing the crash harness kills with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, SOURCE_NODE_ARGS } from './spawn-service.ts';
import { eventually } from './eventually.ts';

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves once the process logged that its background services run. */
  ready: Promise<void>;
  exited: Promise<void>;
  output(): string;
  /** SIGKILL (no shutdown hook runs) and wait until the process is gone. */
  crash(): Promise<void>;
}

type Tree = Record<string, unknown>;

/**
 * Config overrides (the second level of config/default.json, as createTestApp takes
 * them) as `RAMPART__a__b` variables, so the worker runs with exactly the settings of
 * the test's own app. Arrays and scalars are leaves, written as JSON.
 */
export function configEnv(overrides: Tree, prefix = 'RAMPART'): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(overrides)) {
    const name = `${prefix}__${key}`;
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(env, configEnv(value as Tree, name));
    else env[name] = JSON.stringify(value);
  }
  return env;
}

/** Starts a worker-role process with NODE_ENV=test, the database and the given config overrides. */
export function startWorker(databaseUrl: string, overrides: Tree = {}): WorkerProcess {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'core/main.ts', '--role', 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      // info: readiness is the start-up line; errors are read back by the harness.
      ...configEnv({ ...overrides, log: { level: 'info' } }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = eventually(async () => out.includes('Rampart started') || (child.exitCode !== null ? Promise.reject(new Error(`worker exited: ${out}`)) : false), 60_000, 50).then(() => undefined);
  return {
    child,
    pid: child.pid!,
    ready,
    exited,
    output: () => out,
    async crash() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
