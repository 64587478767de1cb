import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutorResult, LogLevel } from '../../core/plugin-api/index.ts';
import { networkIsolation } from './network-isolation.ts';
import { resultOfExit } from './parse-output.ts';
import { resolveScript, ScriptRefusal } from './resolve-script.ts';
import { StderrLines } from './stderr-lines.ts';

export interface RunExecutableOptions {
  scriptsDir: string;
  /** A file name in `scriptsDir`. */
  target: string;
  /** Written to the executable's stdin as one JSON document (the one channel for secrets). */
  params: Record<string, unknown>;
  /** Extra environment variables (context such as RAMPART_EXECUTION_ID; never secrets). */
  env?: Record<string, string>;
  sandbox: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputBytes: number;
  maxLogLines?: number;
  onLog: (level: LogLevel, message: string) => void;
  /** Time between SIGTERM and SIGKILL of the process group (default 1000 ms). */
  killGraceMs?: number;
}

const BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };

/** The environment an executable gets: nothing of ours but what is listed here. */
export function executableEnv(o: Pick<RunExecutableOptions, 'env' | 'sandbox'>, home: string): Record<string, string> {
  const env: Record<string, string> = { ...BASE_ENV, ...(o.env ?? {}), HOME: home };
  if (o.sandbox) env.RAMPART_SANDBOX = '1';
  else delete env.RAMPART_SANDBOX;
  return env;
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the whole group is already gone.
  }
}

function refused(err: ScriptRefusal): ExecutorResult {
  return { status: 'failed', output: {}, error: { code: err.code, message: err.message } };
}

/**
 * Runs an admin-installed executable: no shell, argv of just the program, a minimal
 * environment, a fresh private working directory, the parameters as JSON on stdin, stdout
 * parsed as `{status, data}`, stderr lines as log lines. The process leads its own
 * process group, and the whole group is killed when the run ends (whatever the reason),
 * so nothing it started outlives the run. Shared by the `local` executor and the on-site agent.
 */
export async function runExecutable(o: RunExecutableOptions): Promise<ExecutorResult> {
  let file: string;
  try {
    file = await resolveScript(o.scriptsDir, o.target);
  } catch (err) {
    if (err instanceof ScriptRefusal) return refused(err);
    throw err;
  }
  if (o.signal.aborted) return { status: 'failed', output: {}, error: { code: 'cancelled', message: 'the run was cancelled before the executable started' } };
  let command = file;
  let args: string[] = [];
  if (o.sandbox) {
    const unshare = await networkIsolation();
    if (unshare) [command, args] = [unshare, ['--net', '--map-root-user', '--', file]];
    else o.onLog('WARN', 'network isolation is unavailable on this host (unshare -rn failed): the sandbox run has network access');
  }
  const home = await mkdtemp(join(tmpdir(), 'rampart-local-'));
  try {
    return await supervise(o, command, args, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function supervise(o: RunExecutableOptions, command: string, args: string[], home: string): Promise<ExecutorResult> {
  return new Promise((settle) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, { cwd: home, env: executableEnv(o, home), shell: false, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      // Synchronous refusals (an environment value holding NUL, …) are a failed run, not a crash.
      settle({ status: 'failed', output: {}, error: { code: 'spawn_failed', message: `the executable could not be started: ${(err as NodeJS.ErrnoException).code ?? 'invalid arguments'}` } });
      return;
    }
    const stderr = new StderrLines(o.maxLogLines ?? 1000, o.onLog);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stop: 'timeout' | 'cancelled' | 'too_large' | null = null;
    let spawnError: Error | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let killTimer: NodeJS.Timeout | undefined;

    const terminate = (why: NonNullable<typeof stop>): void => {
      if (stop || exit) return;
      stop = why;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), o.killGraceMs ?? 1000);
    };
    const onAbort = (): void => terminate('cancelled');
    const timer = setTimeout(() => terminate('timeout'), o.timeoutMs);
    o.signal.addEventListener('abort', onAbort, { once: true });
    // Aborted while the working folder was being made: the listener came too late to hear it.
    if (o.signal.aborted) onAbort();

    child.stdout!.on('data', (chunk: Buffer) => {
      if (bytes >= o.maxOutputBytes) return;
      const room = o.maxOutputBytes - bytes;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += Math.min(chunk.length, room);
      if (chunk.length > room) terminate('too_large');
    });
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A program that never reads stdin (or exits early) makes the write fail with EPIPE: not our concern.
    child.stdin!.on('error', () => {});
    child.stdin!.end(JSON.stringify(o.params));

    child.on('error', (err) => {
      spawnError = err;
    });
    // Once the leader exits, whatever it left behind in its group goes too; otherwise a
    // grandchild holding stdout open would keep 'close' from ever firing.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid, 'SIGKILL');
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      o.signal.removeEventListener('abort', onAbort);
      killGroup(child.pid, 'SIGKILL');
      stderr.end();
      const stdout = Buffer.concat(chunks).toString('utf8');
      settle(outcome(o, stop, spawnError, stdout, exit ?? { code, signal }));
    });
  });
}

function outcome(
  o: RunExecutableOptions,
  stop: 'timeout' | 'cancelled' | 'too_large' | null,
  spawnError: Error | null,
  stdout: string,
  exit: { code: number | null; signal: NodeJS.Signals | null },
): ExecutorResult {
  if (spawnError) return { status: 'failed', output: {}, error: { code: 'spawn_failed', message: `the executable could not be started: ${(spawnError as NodeJS.ErrnoException).code ?? spawnError.message}` } };
  if (stop === 'timeout') return { status: 'timed_out', output: {}, error: { code: 'timeout', message: `the executable did not finish within ${o.timeoutMs} ms; its process group was killed` } };
  if (stop === 'cancelled') return { status: 'failed', output: {}, error: { code: 'cancelled', message: 'the run was cancelled; the process group was killed' } };
  if (stop === 'too_large') {
    return {
      status: 'failed',
      output: { truncated: true, stdout },
      error: { code: 'output_too_large', message: `standard output exceeded ${o.maxOutputBytes} bytes; it was cut there and the process group was killed` },
    };
  }
  return resultOfExit(stdout, exit.code, exit.signal);
}
