import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Node's flags for a process that runs the TypeScript sources, as the test processes do
 * (typescript-loader.mjs: tsx's work without its per-module cost; `npm run dev` uses tsx).
 */
export const SOURCE_NODE_ARGS = ['--no-node-snapshot', `--import=${new URL('./typescript-loader.mjs', import.meta.url).href}`];

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Service {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches, rejects on exit or after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
}

/** Starts the service from the sources (`npm run dev`'s entry point) with the given environment and arguments (e.g. `--role`). */
export function startService(env: Record<string, string>, args: string[] = []): Service {
  return watch(spawn(process.execPath, [...SOURCE_NODE_ARGS, 'core/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

/**
 * Starts the compiled service (dist/, which the caller has built) with `npm start`'s own
 * command line minus npm: core/runtime/launch.mjs, which refuses an out-of-date dist/.
 */
export function startCompiledService(env: Record<string, string>, args: string[] = []): Service {
  return watch(spawn(process.execPath, ['--no-node-snapshot', 'core/runtime/launch.mjs', 'core/main', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

/**
 * Runs an npm script of the checkout (`npm start`, `npm run start:trial`) exactly as an
 * operator would: the child is npm, which runs the compiled start (building dist/ first
 * when the sources changed).
 */
export function startNpmScript(script: string, env: Record<string, string>, args: string[] = []): Service {
  return watch(spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

function watch(child: ChildProcess): Service {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = pattern.exec(out);
          if (m) return resolve(m[0]);
          if (child.exitCode !== null) return reject(new Error(`service exited (${child.exitCode}): ${out}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}: ${out}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    },
  };
}
