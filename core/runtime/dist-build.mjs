// The compiled copy of Rampart in dist/: what it is built from, whether it is current,
// and how it is (re)built. Plain JavaScript, because it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = join(ROOT, 'dist');
const STAMP = '.build-stamp.json';
const LOCK = join(ROOT, '.dist-lock');

/** The folders compiled into dist/ (tsconfig.build.json's `include`). */
const SOURCE_DIRS = ['core', 'config', 'plugins', 'scanners', 'executors', 'forwarders', 'agent'];
/** Files outside them that change what the compiler emits. */
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];
const SOURCE = /\.(?:[cm]?ts|mjs)$/;

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (SOURCE.test(entry.name)) out.push(path);
  }
  return out;
}

/**
 * A digest of every file the build reads: their paths and contents, not their times
 * (a checkout, a copy or a restore changes times without changing code, and a
 * clock set back would hide a change).
 */
export function sourceDigest() {
  const files = SOURCE_DIRS.flatMap((d) => (existsSync(join(ROOT, d)) ? walk(join(ROOT, d), []) : [])).concat(SOURCE_FILES.map((f) => join(ROOT, f)));
  const hash = createHash('sha256');
  for (const file of files.map((f) => relative(ROOT, f)).sort()) {
    hash.update(`${file}\0`);
    hash.update(existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file)) : '');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The stamp the last build wrote, or null (no build, or one that did not finish). */
export function readStamp(dist = DIST) {
  try {
    return JSON.parse(readFileSync(join(dist, STAMP), 'utf8'));
  } catch {
    return null;
  }
}

/** Whether dist/ was built from exactly the sources in the checkout now. */
export function isFresh(digest = sourceDigest()) {
  return readStamp()?.digest === digest;
}

/** The TypeScript compiler's command line, or null when TypeScript (a dev dependency) is not installed. */
export function compilerPath() {
  try {
    return createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the build lock (a directory: mkdir is atomic), so processes that
 * start together (an api and a worker unit) do not build over each other. A lock
 * whose owner died is taken over.
 */
async function withLock(fn, waitMs = 10 * 60_000) {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(readFileSafe(join(LOCK, 'pid')));
      if (owner && !pidAlive(owner)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > until) throw new Error(`another process (pid ${owner || '?'}) has been building dist/ for too long; remove ${LOCK} if it is gone`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function readFileSafe(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The package.json of dist/: the version core/version.ts reports, and the plugin contract's compiled entry points. */
function distPackage() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const exports = Object.fromEntries(Object.entries(pkg.exports ?? {}).map(([k, v]) => [k, String(v).replace(/\.ts$/, '.js')]));
  return { name: pkg.name, version: pkg.version, private: true, type: 'module', exports };
}

/**
 * Compiles the sources into dist/ unless it is already current; returns what it did.
 * The compiler writes into a fresh folder that replaces dist/ only once complete, with
 * the stamp written last, so a failed or interrupted build never leaves a dist/ that
 * looks current.
 */
export async function ensureBuilt({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  if (isFresh()) return 'fresh';
  return withLock(async () => {
    const digest = sourceDigest();
    if (isFresh(digest)) return 'fresh'; // built by the process we waited for
    const tsc = compilerPath();
    if (!tsc) return 'no-compiler';
    const started = Date.now();
    log(existsSync(DIST) ? 'Sources changed since dist/ was built: compiling…' : 'Compiling Rampart into dist/…');
    const out = join(ROOT, `.dist-build-${process.pid}`);
    rmSync(out, { recursive: true, force: true });
    const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (result.status !== 0) {
      rmSync(out, { recursive: true, force: true });
      throw new Error(`compiling failed:\n${result.stdout}${result.stderr}`);
    }
    // Plain-JavaScript modules (worker entries, these build files) are copied beside their compiled neighbours.
    for (const dir of SOURCE_DIRS) {
      if (!existsSync(join(ROOT, dir))) continue;
      for (const file of walk(join(ROOT, dir), []).filter((f) => f.endsWith('.mjs'))) {
        const target = join(out, relative(ROOT, file));
        mkdirSync(dirname(target), { recursive: true });
        cpSync(file, target);
      }
    }
    writeFileSync(join(out, 'package.json'), `${JSON.stringify(distPackage(), null, 2)}\n`);
    // No copy of resources/, console/ or node_modules: the compiled code finds them in the
    // checkout through core/runtime/project-files.ts, the one rule for files on disk.
    writeFileSync(join(out, STAMP), `${JSON.stringify({ digest, built_at: new Date().toISOString(), node: process.version })}\n`);
    const old = join(ROOT, `.dist-old-${process.pid}`);
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(out, DIST);
    rmSync(old, { recursive: true, force: true });
    log(`Compiled in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    return 'built';
  });
}
