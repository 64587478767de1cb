import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../../_helpers/harness/processes.ts';
import { ROOT } from '../../_helpers/harness/spawn-service.ts';

// The compiled start on a project of one file (a copy of core/runtime/ and the tsconfig
// files, the real TypeScript compiler): dist/ is rebuilt whenever the sources changed, and
// an out-of-date dist/ never runs, whatever happens to the build.

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-dist-'));
  mkdirSync(join(dir, 'core'));
  cpSync(join(ROOT, 'core', 'runtime'), join(dir, 'core', 'runtime'), { recursive: true, filter: (f) => !f.endsWith('.ts') || f.endsWith('.d.mts') });
  for (const f of ['tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, f), join(dir, f));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'rampart', version: '9.9.9', type: 'module' }));
  mkdirSync(join(dir, 'resources'));
  linkCompiler(dir);
  version(dir, 'v1');
  return dir;
}

function linkCompiler(dir: string): void {
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

function version(dir: string, v: string): void {
  writeFileSync(join(dir, 'core', 'main.ts'), `const v: string = '${v}';\nconsole.log('running', v, JSON.stringify(process.argv.slice(2)));\n`);
}

interface Run {
  code: number | null;
  out: string;
}

function launch(dir: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(dir, 'core', 'runtime', 'launch.mjs'), 'core/main', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('built on first start, reused while the sources are unchanged, rebuilt when they change', async (t) => {
  t.timeout(240_000);
  const dir = project();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const first = await launch(dir, '--role', 'api');
  t.is(first.code, 0, first.out);
  t.regex(first.out, /Compiling Rampart into dist\/…/);
  t.regex(first.out, /running v1 \["--role","api"\]/, 'the entry sees its own arguments');
  const stamp = JSON.parse(readFileSync(join(dir, 'dist', '.build-stamp.json'), 'utf8'));
  t.regex(stamp.digest, /^[0-9a-f]{64}$/);
  t.is(JSON.parse(readFileSync(join(dir, 'dist', 'package.json'), 'utf8')).version, '9.9.9');
  t.true(existsSync(join(dir, 'dist', 'core', 'runtime', 'launch.mjs')), 'plain-JavaScript modules are copied');

  const again = await launch(dir);
  t.is(again.code, 0);
  t.notRegex(again.out, /ompiling/);
  t.regex(again.out, /running v1/);

  version(dir, 'v2');
  const changed = await launch(dir);
  t.is(changed.code, 0, changed.out);
  t.regex(changed.out, /Sources changed since dist\/ was built: compiling…/);
  t.regex(changed.out, /running v2/);
  t.notRegex(changed.out, /running v1/);
});

test('without a compiler an out-of-date dist/ refuses to run; prepare notes it and lets the install finish', async (t) => {
  t.timeout(240_000);
  const dir = project();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.is((await launch(dir)).code, 0);
  // An install without dev dependencies: no TypeScript.
  rmSync(join(dir, 'node_modules'), { force: true });
  mkdirSync(join(dir, 'node_modules'));
  t.regex((await launch(dir)).out, /running v1/, 'a current dist/ runs without a compiler');

  version(dir, 'v2');
  const stale = await launch(dir);
  t.is(stale.code, 1);
  t.regex(stale.out, /dist\/ is missing or older than the sources, and TypeScript \(a dev dependency\) is not installed/);
  t.notRegex(stale.out, /running/);

  const prepare = await runProcess(process.execPath, [join(dir, 'core', 'runtime', 'build.mjs'), '--if-possible'], { cwd: dir });
  t.is(prepare.code, 0);
  t.regex(prepare.stderr, /TypeScript is not installed/);
  const build = await runProcess(process.execPath, [join(dir, 'core', 'runtime', 'build.mjs')], { cwd: dir });
  t.is(build.code, 1);
});

test('a build that fails leaves the previous dist/ in place and does not run it', async (t) => {
  t.timeout(240_000);
  const dir = project();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.is((await launch(dir)).code, 0);
  writeFileSync(join(dir, 'core', 'main.ts'), 'const broken = ;\n');
  const failed = await launch(dir);
  t.is(failed.code, 1);
  t.regex(failed.out, /compiling failed/);
  t.notRegex(failed.out, /running v1/);
  t.true(existsSync(join(dir, 'dist', 'core', 'main.js')));
  t.false(existsSync(join(dir, '.dist-lock')), 'the lock is released');
});

test('processes starting together build once; a lock left by a dead process is taken over', async (t) => {
  t.timeout(240_000);
  const dir = project();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [a, b] = await Promise.all([launch(dir), launch(dir)]);
  t.is(a.code, 0, a.out);
  t.is(b.code, 0, b.out);
  t.regex(a.out + b.out, /running v1[\s\S]*running v1/);
  t.is((a.out + b.out).match(/Compiling/g)?.length, 1, 'one of them compiled, the other waited');

  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  mkdirSync(join(dir, '.dist-lock'));
  writeFileSync(join(dir, '.dist-lock', 'pid'), dead.stdout.trim());
  version(dir, 'v2');
  const taken = await launch(dir);
  t.is(taken.code, 0, taken.out);
  t.regex(taken.out, /running v2/);
});
