// Module hooks that load the TypeScript sources for the tests and the processes they spawn
// (registered by typescript-loader.mjs). Every relative import names its file with its
// extension (tsconfig's NodeNext), so Node's own resolver finds the file and only the load
// needs a hook: no resolve hook, no tsconfig lookup, no CommonJS patching (tsx did all three
// for each of the ≈1,400 modules a test process imports, and that was a third of its CPU).
// A module keeps its own URL, so import.meta.url and the paths beside it are the source's.
// The JavaScript is esbuild's (the one tsx installs, as core/runtime/typescript-support.ts
// uses for worker threads), kept in node_modules/.cache/ by a digest of the path and the
// source, so a warm run never starts esbuild. Plain JavaScript: it runs before any TypeScript.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TYPESCRIPT = /\.m?ts$/;
/** What the transform depends on besides the source: a change here starts a new cache. */
const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
};
const esbuildPath = createRequire(createRequire(`${ROOT}package.json`).resolve('tsx/package.json')).resolve('esbuild');
const esbuildVersion = JSON.parse(readFileSync(createRequire(esbuildPath).resolve('esbuild/package.json'), 'utf8')).version;
const CACHE = `${ROOT}node_modules/.cache/rampart-typescript/`;
const SALT = `${esbuildVersion}\0${JSON.stringify(OPTIONS)}\0`;
let esbuild = null;

function transpile(path, source) {
  const key = createHash('sha256').update(SALT).update(path).update('\0').update(source).digest('hex');
  const cached = `${CACHE}${key.slice(0, 2)}/${key}.js`;
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // not cached yet
  }
  esbuild ??= createRequire(import.meta.url)(esbuildPath);
  const { code } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: path });
  try {
    mkdirSync(`${CACHE}${key.slice(0, 2)}`, { recursive: true });
    // Written aside and renamed: a process reading it meanwhile sees all of it or nothing.
    const temp = `${cached}.${process.pid}.tmp`;
    writeFileSync(temp, code);
    renameSync(temp, cached);
  } catch {
    // a read-only checkout still runs, transpiling every time
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  return { format: 'module', source: transpile(path, readFileSync(path, 'utf8')), shortCircuit: true };
}
