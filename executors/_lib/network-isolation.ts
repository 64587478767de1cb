import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/unshare', '/bin/unshare'];
const TRUE_BINARIES = ['/usr/bin/true', '/bin/true'];

let probe: Promise<string | null> | undefined;

function tryUnshare(unshare: string, trueBin: string): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(unshare, ['--net', '--map-root-user', '--', trueBin], { stdio: 'ignore', shell: false, env: { PATH: '/usr/bin:/bin' } });
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

/**
 * The path of a working `unshare` that can give a process an empty network namespace
 * without privileges (a user namespace mapping us to root), or null. Probed once per
 * process by running `unshare -rn true`: kernels and containers that forbid
 * unprivileged user namespaces make it fail, and we must know before a sandbox run.
 */
export function networkIsolation(): Promise<string | null> {
  probe ??= (async () => {
    const unshare = CANDIDATES.find((p) => existsSync(p));
    const trueBin = TRUE_BINARIES.find((p) => existsSync(p));
    if (!unshare || !trueBin) return null;
    return (await tryUnshare(unshare, trueBin)) ? unshare : null;
  })();
  return probe;
}
