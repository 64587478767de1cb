// Resource figures of a server process, read from /proc: what the issue-25 ceilings are asserted against.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const MIB = 1024 * 1024;

function statusField(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field}`);
  return (Number(/(\d+)/.exec(line)![1]) * 1024) / MIB;
}

/** Resident set size now, in MiB. */
export const rssMib = (pid: number): number => statusField(pid, 'VmRSS');
/** Peak resident set size since start (or since {@link resetPeak}), in MiB. */
export const peakRssMib = (pid: number): number => statusField(pid, 'VmHWM');

/** Resets the peak RSS to the current RSS (clear_refs 5), so a later peak measures one run only. */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** CPU seconds (user + system) the process has used, all threads. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat; after the comm they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Threads of the process that are running (state R) right now. */
export function runningThreads(pid: number): number {
  let n = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('R')) n++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return n;
}

/** CPU seconds the process uses over `ms` of wall time. */
export async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, ms));
  return cpuSeconds(pid) - before;
}
