import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { databaseTestFiles } from '../_helpers/harness/database-files.mjs';
import { ROOT } from '../_helpers/harness/spawn-service.ts';

// The MariaDB pass of .ci/run runs only what databaseTestFiles() selects: a file wrongly left
// out would lose its MariaDB coverage without anyone noticing, so the rule is pinned here.

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'rampart-dbfiles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('a file reaching a database directly or through any chain of test helpers is selected; the rest are not', (t) => {
  const root = tree({
    'test/_helpers/harness/test-app.ts': "export async function createTestApp() {}\n",
    'test/_helpers/harness/spawn-service.ts': "export const ROOT = '/'; export function startService() {}\n",
    'test/_helpers/deep/seeded.ts': "import { createTestApp } from '../harness/test-app.ts';\n",
    'test/_helpers/deep/via.ts': "import { seeded } from './seeded.ts';\n",
    'test/a/direct.test.ts': "import { createTestApp } from '../_helpers/harness/test-app.ts';\n",
    'test/a/chain.test.ts': "import { x } from '../_helpers/deep/via.ts';\n",
    'test/a/env.test.ts': "const url = process.env.DATABASE_URL;\n",
    'test/a/root-only.test.ts': "import { ROOT } from '../_helpers/harness/spawn-service.ts';\n",
    'test/a/service.test.ts': "import { startService } from '../_helpers/harness/spawn-service.ts';\nstartService({});\n",
    'test/a/pure.test.ts': "import { cvss } from '../../core/cvss.ts';\n",
    'test/a/cycle.test.ts': "import { b } from './cycle-b.ts';\n",
    'test/a/cycle-b.ts': "import { a } from './cycle.test.ts';\n",
    // Nothing that depends on the pass's engine: an erased import, URLs written in the file, a quoted import.
    'test/a/type-only.test.ts': "import type { TestApp } from '../_helpers/harness/test-app.ts';\n",
    'test/a/literal-urls.test.ts': "const db = createDb(`sqlite:${file}`);\nloadConfig({ env: { DATABASE_URL: 'mysql://root@127.0.0.1:3306/test' } });\n",
    'test/a/quoted-knex.test.ts': "const planted = { 'core/x.ts': \"import knex from 'knex';\\n\" };\n",
    // …but the same names used for real still count.
    'test/a/imports-knex.test.ts': "import knexPkg from 'knex';\n",
    'test/a/env-db.test.ts': "const db = createDb(process.env.DATABASE_URL ?? 'sqlite::memory:');\n",
    'test/a/mixed-import.test.ts': "import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';\n",
  });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const files = ['direct', 'chain', 'env', 'root-only', 'service', 'pure', 'cycle', 'type-only', 'literal-urls', 'quoted-knex', 'imports-knex', 'env-db', 'mixed-import'].map((n) => `test/a/${n}.test.ts`);
  t.deepEqual(databaseTestFiles(root, files), ['direct', 'chain', 'env', 'service', 'imports-knex', 'env-db', 'mixed-import'].map((n) => `test/a/${n}.test.ts`));
});

test('on this repository: every API, reliability and console-server test is selected, parsers are not', (t) => {
  const selected = new Set(
    databaseTestFiles(ROOT, [
      'test/reliability/fuzz/openapi-fuzz-1-of-3.test.ts',
      'test/core/playbooks/runs/run-engine.test.ts',
      'test/console/every-page.test.ts',
      'test/core/findings/cvss.test.ts',
      'test/scanners/_lib/protocols/amqp.test.ts',
    ]),
  );
  t.deepEqual([...selected], ['test/reliability/fuzz/openapi-fuzz-1-of-3.test.ts', 'test/core/playbooks/runs/run-engine.test.ts', 'test/console/every-page.test.ts']);
});
