// ava's settings. RAMPART_TEST_SCOPE=database (the MariaDB pass of .ci/run) runs only the
// files that touch Rampart's database (test/_helpers/harness/database-files.mjs): the others
// give the same result on every engine and have run on the SQLite pass. Of the console's
// browser tests it keeps only the one that opens every page: the console is a client of the
// public API, whose behaviour on each engine the API tests check (docs/testing.md).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { databaseTestFiles } from './test/_helpers/harness/database-files.mjs';
import { slowestFirst } from './test/_helpers/harness/file-order.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === '_helpers' || e.name === 'fixtures' ? [] : testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const databaseOnly = process.env.RAMPART_TEST_SCOPE === 'database';

export default {
  files: databaseOnly
    ? databaseTestFiles(process.cwd(), testFiles('test')).filter((f) => !f.startsWith('test/console/') || f === 'test/console/every-page.test.ts')
    : ['test/**/*.test.ts'],
  sortTestFiles: slowestFirst(),
  extensions: { ts: 'module' },
  nodeArguments: ['--no-node-snapshot', '--import=./test/_helpers/harness/typescript-loader.mjs', '--import=./test/_helpers/harness/file-times.mjs'],
  workerThreads: false,
  timeout: '3m',
  concurrency: 2,
};
