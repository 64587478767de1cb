import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary scripts directory the test fills with real executables. */
export interface ScriptsDir {
  dir: string;
  /** Writes an executable (mode 755 unless given) and returns its name. */
  add(name: string, body: string, mode?: number): Promise<string>;
  /** A Node.js script: the body runs after `const input = <stdin parsed>`. */
  node(name: string, body: string): Promise<string>;
  remove(): Promise<void>;
}

export async function scriptsDir(): Promise<ScriptsDir> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-scripts-'));
  const add = async (name: string, body: string, mode = 0o755): Promise<string> => {
    await writeFile(join(dir, name), body);
    await chmod(join(dir, name), mode);
    return name;
  };
  return {
    dir,
    add,
    node: (name, body) =>
      add(name, `#!${process.execPath}\nlet raw = '';\nprocess.stdin.on('data', (c) => (raw += c));\nprocess.stdin.on('end', async () => {\nconst input = raw === '' ? null : JSON.parse(raw);\n${body}\n});\n`),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds, polling; fails the wait after `ms` (a bound, not a timing assertion). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
