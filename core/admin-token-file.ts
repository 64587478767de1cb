import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Writes the admin token generated at first start to `file` (`auth.bootstrapTokenFile`,
 * set by the trial profile so scripts can read it), readable by this user only. The
 * token goes to a new file (O_EXCL: never through a planted symlink) that then replaces
 * `file`; returns the full path.
 */
export function writeAdminTokenFile(file: string, token: string): string {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fresh = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(fresh, `${token}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(fresh, path);
  } catch (err) {
    rmSync(fresh, { force: true });
    throw err;
  }
  return path;
}
