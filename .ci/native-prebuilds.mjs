// Run by .ci/run after `npm ci`. better-sqlite3 and isolated-vm install through
// prebuild-install, which downloads a compiled addon from GitHub and, when that fails (CI
// cannot reach GitHub), compiles it from source: 3–5 min of CI's two cores on every fresh
// clone. prebuild-install looks in npm's cache (~/.npm/_prebuilds) before downloading, under
// a name made from the addon's version, Node's ABI, the platform and the architecture. This
// script puts the addon this install has (compiled or unpacked) there, so the next `npm ci`
// unpacks it instead of compiling. prebuild-install loads an unpacked addon before accepting
// it: a damaged or foreign file fails that check and the addon is compiled again, as on a
// machine with an empty cache, and rewritten here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Each addon and the file its package loads, relative to the package. */
const ADDONS = [
  ['better-sqlite3', 'build/Release/better_sqlite3.node'],
  ['isolated-vm', 'out/isolated_vm.node'],
];

for (const [name, binary] of ADDONS) {
  const dir = join(ROOT, 'node_modules', name);
  let partial = null;
  try {
    if (!existsSync(join(dir, binary))) continue;
    const digest = createHash('sha256').update(readFileSync(join(dir, binary))).digest('hex');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const requireHere = createRequire(join(dir, 'package.json'));
    // prebuild-install's own reading of the platform, ABI and cache folder, and its own naming.
    const rc = requireHere('prebuild-install/rc')(pkg);
    const util = requireHere('prebuild-install/util');
    const cached = util.cachedPrebuild(util.getDownloadUrl({ ...rc, pkg }));
    // The addon's digest beside the archive: an install that unpacked this very archive needs no new one.
    if (existsSync(cached) && existsSync(`${cached}.sha256`) && readFileSync(`${cached}.sha256`, 'utf8') === digest) continue;
    mkdirSync(dirname(cached), { recursive: true });
    partial = `${cached}.${process.pid}.partial`;
    execFileSync('tar', ['-czf', partial, '-C', dir, binary]);
    renameSync(partial, cached);
    writeFileSync(`${cached}.sha256`, digest);
    console.log(`${name}: kept for the next install in ${cached}`);
  } catch (err) {
    // A cache is an optimisation: without it the next install compiles, as it did here.
    console.log(`${name}: not cached (${err instanceof Error ? err.message : String(err)})`);
    if (partial) rmSync(partial, { force: true });
  }
}
