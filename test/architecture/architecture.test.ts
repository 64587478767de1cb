// Guard-rails for the layout DESIGN.md describes (the rules: ./rules.ts). Each rule runs on
// the repository, where it must find nothing, and on planted files breaking it, where it
// must find exactly the planted breaks: a rule that cannot fail guards nothing.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { plantedTree, repoTree, RULES } from './rules.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPO = repoTree(ROOT, ['core', 'plugins', 'scanners', 'executors', 'forwarders', 'agent', 'cli', 'test/fixtures']);

/** Per rule: files breaking it, and how many breaks it must report for them. */
const PLANTED: Record<string, { files: Record<string, string>; breaks: number }> = {
  'every table has an owning feature': {
    files: {
      'core/db/migrations/099-x.ts': "export const up = async (db) => {\n  await createTable(db, 'orphans', (t) => t.string('id'));\n  await db.schema.createTable('strays', () => {});\n  await createTable(db, 'findings', () => {});\n};\n",
    },
    breaks: 2,
  },
  'a table is written only by the feature that owns it': {
    files: {
      // Three writes from outside core/findings: a builder chain over lines, a batch insert, SQL text.
      'core/scans/scan-finding-repository.ts': "export const f = (db) => db('findings')\n  .where({ id: 1 })\n  .update({ last_seen: 2 });\n",
      'core/imports/import-repository.ts': "export const g = (db, rows) => insertBatched(db, 'finding_keys', rows);\n",
      'core/assets/asset-repository.ts': "export const h = (db) => db.raw('delete from finding_notes where id = ?', [1]);\n",
      // Beyond findings: retention deleting another feature's rows, SSO writing auth's users.
      'core/retention/retention-repository.ts': "export const d = (db, ids) => db('webhook_deliveries').whereIn('id', ids).delete();\n",
      'core/sso/sso-identity-repository.ts': "export const u = (trx) => trx('users').where({ id: 1 }).update({ scopes: '[]' });\n",
      // Not breaks: reads elsewhere, writes by the owner, a migration, a comment.
      'core/inventory/inventory-repository.ts': "export const r = (db) => db('findings').where({ id: 1 }).select('id');\n// db('findings').update({}) in a comment\n",
      'core/findings/finding-repository.ts': "export const w = (db) => db('findings').where({ id: 1 }).update({ status: 'open' });\n",
      'core/db/migrations/099-x.ts': "export const up = (db) => db('findings').update({ tags: '[]' });\n",
    },
    breaks: 5,
  },
  'knex only in repositories, core/db and core/work': {
    files: {
      'core/assets/asset-service.ts': "import knex from 'knex';\n",
      'core/scans/scan-service.ts': "export const f = (trx) => trx('scans').where({ id: 1 });\n",
      'core/scans/scan-repository.ts': "import knex from 'knex';\nexport const g = (trx) => trx('scans');\n",
    },
    breaks: 2,
  },
  'routes never import repositories': {
    files: { 'plugins/assets/asset-routes.ts': "import { assetRepository } from '../../core/assets/asset-repository.ts';\n", 'core/assets/asset-repository.ts': '' },
    breaks: 1,
  },
  'extensions import only the public contract': {
    files: {
      'scanners/x/index.ts': "import { createDb } from '../../core/db/create-db.ts';\nimport type { CheckContext } from '../../core/plugin-api/index.ts';\nimport { helper } from '../_lib/helper.ts';\nimport ipaddr from 'ipaddr.js';\n",
      'executors/y/index.ts': "import { x } from 'rampart/core/db';\n",
      'core/db/create-db.ts': '',
      'core/plugin-api/index.ts': '',
      'scanners/_lib/helper.ts': '',
    },
    breaks: 2,
  },
  'the contract, the agent protocol and the shared words import nothing internal': {
    files: {
      'core/domain/severity.ts': "import { x } from '../scans/scan-types.ts';\n",
      'core/plugin-api/scanner.ts': "import type { Severity } from '../domain/severity.ts';\nimport { db } from '../db/create-db.ts';\n",
      'core/agent-protocol.ts': "import type { AgentCommand } from './plugin-api/index.ts';\nimport { AgentJobRecord } from './agents/agent-views.ts';\n",
      'core/scans/scan-types.ts': '',
      'core/db/create-db.ts': '',
      'core/agents/agent-views.ts': '',
      'core/plugin-api/index.ts': '',
    },
    breaks: 3,
  },
  'nothing in core/ imports plugins/, scanners/, executors/ or forwarders/': {
    files: {
      'core/scans/scan-planner.ts': "import webApp from '../../scanners/web_app/index.ts';\n",
      'core/app.ts': "import { main } from './main.ts';\n",
      'core/main.ts': "import { routes } from '../plugins/index.ts';\n",
      'scanners/web_app/index.ts': '',
      'plugins/index.ts': '',
    },
    breaks: 2,
  },
  'no import cycles between folders': {
    files: { 'core/scans/a.ts': "import { b } from '../findings/b.ts';\n", 'core/findings/b.ts': "import { c } from '../assets/c.ts';\n", 'core/assets/c.ts': "import { a } from '../scans/a.ts';\n" },
    breaks: 1,
  },
  'the engine never imports the author kit': {
    files: {
      'core/scans/check-worker.ts': "import { runCheck } from '../author-kit/index.ts';\n",
      'cli/run.ts': "import { runCheck } from 'rampart/author-kit';\n",
      'core/author-kit/index.ts': "export { runCheck } from '../plugins/run-check.ts';\n",
      'core/plugins/run-check.ts': '',
    },
    breaks: 2,
  },
  'the author kit only re-exports core/plugins/': {
    files: {
      'core/author-kit/index.ts': "/** docs */\nexport { runCheck } from '../plugins/run-check.ts';\nexport { createSandbox } from '../sandbox/sandbox.ts';\nexport function helper() {\n  return 1;\n}\n",
      'core/plugins/run-check.ts': '',
      'core/sandbox/sandbox.ts': '',
    },
    breaks: 2,
  },
  'the agent imports only the contract, the agent protocol and executors/_lib': {
    files: {
      'agent/job-runner.ts': "import type { AgentJob } from '../core/agent-protocol.ts';\nimport { runExecutable } from '../executors/local/run-executable.ts';\nimport { x } from '../executors/_lib/x.ts';\nimport { createSandbox } from '../core/sandbox/sandbox.ts';\n",
      'agent/main.ts': "import { createSandbox } from '../core/sandbox/sandbox.ts';\nimport { db } from '../core/db/create-db.ts';\n",
      'core/agent-protocol.ts': '',
      'executors/local/run-executable.ts': '',
      'executors/_lib/x.ts': '',
      'core/sandbox/sandbox.ts': '',
      'core/db/create-db.ts': '',
    },
    breaks: 3,
  },
  'scanners open sockets only to addresses, and send HTTP only through ctx.http': {
    files: {
      'scanners/web_app/checks/x.ts': "import { request } from 'undici';\nimport { isIP, type Socket } from 'node:net';\nimport type { Resolver } from 'node:dns/promises';\n",
      'scanners/ssl/checks/y.ts': "import { connect } from 'node:tls';\nimport * as dns from 'node:dns';\n",
      'scanners/_lib/exchange.ts': "import { Socket } from 'node:net';\nexport const open = (host) => new Socket().connect({ host, port: 1 });\n",
      'scanners/_lib/tcp-connect.ts': "import { Socket } from 'node:net';\nimport { addressOnly } from './address-only.mjs';\nexport const open = (host) => new Socket().connect({ host: addressOnly(host), port: 1 });\n",
    },
    breaks: 4,
  },
};

for (const rule of RULES) {
  test(rule.name, (t) => {
    const broken = rule.check(REPO);
    t.deepEqual(broken, [], `Rule: ${rule.advice}\n${broken.map((b) => `  - ${b}`).join('\n')}`);
  });
  test(`${rule.name}: catches a planted violation`, (t) => {
    const planted = PLANTED[rule.name];
    if (!planted) return t.fail(`no planted violation for this rule: add one to PLANTED`);
    const broken = rule.check(plantedTree(planted.files));
    t.is(broken.length, planted.breaks, broken.join('\n'));
  });
}

test('the repository tree is the whole layout (every area read)', (t) => {
  for (const area of ['core/', 'plugins/', 'scanners/', 'executors/', 'forwarders/', 'agent/', 'cli/', 'test/fixtures/']) t.true(REPO.files.some((f) => f.startsWith(area)), area);
  t.true(REPO.edges.length > 1000);
});
