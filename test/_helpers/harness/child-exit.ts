import type { ChildProcess } from 'node:child_process';

/**
 * A child's exit code once its output has been read too: `exit` can come before the last
 * stdout/stderr data, `close` comes after it. If a grandchild keeps the pipes open, `close`
 * never comes; then the code is given two seconds after `exit`.
 */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('exit', (code) => setTimeout(() => resolve(code), 2000).unref());
  });
}
