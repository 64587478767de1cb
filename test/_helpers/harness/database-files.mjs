// Which test files touch Rampart's database, for the second engine's pass of .ci/run
// (RAMPART_TEST_SCOPE=database, read by ava.config.mjs). A file that never opens a database
// (a parser, a scanner check against a real server, the sandbox, the docs) gives the same
// result on SQLite and MariaDB, so running it twice proves nothing and costs CI minutes.
//
// A file counts as touching the database when it, or a test helper it imports (followed
// through every relative import inside test/), names one of the ways into a database below.
// The rule errs towards running a file: a helper that merely mentions DATABASE_URL pulls in
// every test that imports it. spawn-service.ts is the one exception: it exports ROOT and
// freePort too, and its startService() is only ever called with a database its caller made
// (which the caller's own text then names). What cannot depend on the pass's engine is not a
// way in: a type-only import (erased before the file runs), a database opened at a URL
// written in the file (`createDb(\`sqlite:…`, `DATABASE_URL: 'mysql://…'` given to the config
// parser), and 'knex' quoted inside a string rather than imported.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const DATABASE_WAYS = /DATABASE_URL(?!\s*:\s*['"`])|createTestDatabase|createTestApp|createDb\((?!\s*[`'"]sqlite:)|^\s*import\b[^'"\n]*from 'knex'|startService\(/m;

/** Whether `file` (absolute) or a test helper it imports reaches a database. */
function reachesDatabase(file, testRoot, memo) {
  if (memo.has(file)) return memo.get(file);
  memo.set(file, false); // an import cycle adds nothing
  const source = readFileSync(file, 'utf8');
  let reaches = !file.endsWith('/spawn-service.ts') && DATABASE_WAYS.test(source);
  for (const m of reaches ? [] : source.matchAll(/^(?!\s*import\s+type\b)[^\n]*from '(\.[^']+)'/gm)) {
    const target = resolve(dirname(file), m[1]);
    if (target.startsWith(testRoot) && existsSync(target) && reachesDatabase(target, testRoot, memo)) {
      reaches = true;
      break;
    }
  }
  memo.set(file, reaches);
  return reaches;
}

/** The test files under `root` (paths relative to it) that reach a database. */
export function databaseTestFiles(root, files) {
  const memo = new Map();
  const testRoot = join(root, 'test') + '/';
  return files.filter((f) => reachesDatabase(resolve(root, f), testRoot, memo));
}
