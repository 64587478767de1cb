import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

/** Why a target cannot be run; the codes are the run's `error.code`. */
export class ScriptRefusal extends Error {
  readonly code: 'invalid_target' | 'script_not_found' | 'script_not_executable';

  constructor(code: ScriptRefusal['code'], message: string) {
    super(message);
    this.name = 'ScriptRefusal';
    this.code = code;
  }
}

/** A target is a bare file name: the admin's directory is the only place executables come from. */
export function checkTargetName(target: unknown): string {
  if (typeof target !== 'string' || target === '') throw new ScriptRefusal('invalid_target', 'target must name an executable in the scripts directory');
  if (target.length > 255 || /[/\\\0]/.test(target) || target.includes('..') || target.startsWith('.')) {
    throw new ScriptRefusal('invalid_target', 'target must be a plain file name (no path separators, no "..", not hidden)');
  }
  return target;
}

/**
 * The absolute, symlink-free path of `target` inside `scriptsDir`, checked to be a regular
 * executable file that is still inside the directory once links are followed (a link
 * pointing out of the directory is refused as if the file were missing).
 */
export async function resolveScript(scriptsDir: string, target: unknown): Promise<string> {
  const name = checkTargetName(target);
  let dir: string;
  try {
    dir = await realpath(resolve(scriptsDir));
  } catch {
    throw new ScriptRefusal('script_not_found', 'the scripts directory does not exist');
  }
  let file: string;
  try {
    file = await realpath(join(dir, name));
  } catch {
    throw new ScriptRefusal('script_not_found', `no executable named ${name} in the scripts directory`);
  }
  if (!file.startsWith(dir + sep)) throw new ScriptRefusal('script_not_found', `no executable named ${name} in the scripts directory`);
  const info = await stat(file);
  if (!info.isFile()) throw new ScriptRefusal('script_not_executable', `${name} is not a regular file`);
  try {
    await access(file, constants.X_OK);
  } catch {
    throw new ScriptRefusal('script_not_executable', `${name} is not executable`);
  }
  return file;
}
