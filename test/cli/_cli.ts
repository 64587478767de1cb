import { spawn, type ChildProcess } from 'node:child_process';
import { exitOf } from '../_helpers/harness/child-exit.ts';
import { ROOT } from '../_helpers/harness/spawn-service.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI run gets: PATH and HOME, plus what the test gives (no inherited tokens or DATABASE_URL). */
const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' });

/** Runs the `rampart` bin (cli/rampart.mjs, what `npx rampart` runs) as a child process. */
export function rampart(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['cli/rampart.mjs', ...args], { cwd: ROOT, env: { ...baseEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    void exitOf(child).then((code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** A long-running `rampart …` (the agent), for tests that signal it. */
export function rampartProcess(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['cli/rampart.mjs', ...args], { cwd: ROOT, env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = exitOf(child);
  return { child, output: () => out, exited };
}
