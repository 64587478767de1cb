import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench [-- name ... --flag ...]`: runs every bench/<name>.ts (except this
 * file), or only the names given, each in its own Node process (so one benchmark's
 * memory and timers cannot skew another's), one after the other. Flags after the names
 * are passed to every benchmark. Exits non-zero if any benchmark failed.
 */
const dir = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const wanted = args.filter((a) => !a.startsWith('-')).map((a) => basename(a, '.ts'));
const flags = args.filter((a) => a.startsWith('-'));
const all = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => basename(f, '.ts')).sort();
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n=== bench/${name}.ts ===`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--no-node-snapshot', '--expose-gc', '--import', 'tsx', join(dir, `${name}.ts`), ...flags], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed += 1;
    console.error(`bench/${name}.ts failed (exit ${result.status ?? result.signal}) after ${seconds} s`);
  } else {
    console.log(`bench/${name}.ts done in ${seconds} s`);
  }
}
process.exit(failed ? 1 : 0);
