import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** R running, S sleeping, Z dead and not reaped by its parent, … */
  state: string;
  name: string;
}

/** One process from /proc, or null when it is gone. */
export function processInfo(pid: number): ProcessInfo | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  const [state, ppid] = stat.slice(close + 2).split(' ');
  return { pid, ppid: Number(ppid), state: state!, name: stat.slice(stat.indexOf('(') + 1, close) };
}

/** The child processes of `pid` (default: this process), read from /proc. */
export function childrenOf(pid = process.pid): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map((e) => processInfo(Number(e)))
    .filter((p): p is ProcessInfo => p !== null && p.ppid === pid);
}

/** Whether `pid` still exists as a live process (a zombie counts as gone). */
export function alive(pid: number): boolean {
  const info = processInfo(pid);
  return info !== null && info.state !== 'Z';
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking the event loop. Tests use this, never spawnSync, for
 * anything slower than a version probe: a blocked loop stalls the other tests of the file (a MariaDB
 * handshake left unanswered for connect_timeout is reset by the server).
 */
export function runProcess(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessRun> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
