import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, type Db } from '../../core/db/create-db.ts';
import { kevFor } from '../../core/feeds/feed-lookup.ts';
import { createTestDatabase, type TestDatabase } from '../_helpers/harness/test-db.ts';
import { rampart } from './_cli.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/feeds/${name}`, import.meta.url));
let database: TestDatabase;
let db: Db;
let dir: string;
let env: Record<string, string>;

test.before(async () => {
  database = await createTestDatabase({ migrated: true });
  db = createDb(database.url);
  dir = mkdtempSync(join(tmpdir(), 'rampart-feeds-cli-'));
  env = { DATABASE_URL: database.url };
});
test.after.always(async () => {
  await db?.destroy();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.serial('rampart feeds load kev FILE loads the catalog; status lists the load with its sha256', async (t) => {
  const run = await rampart(['--json', 'feeds', 'load', 'kev', fixture('kev-2026.06.15-head.json')], env);
  t.is(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  t.like(out, { feed: 'kev', rows: 5, added: 5, removed: 0, changed: 0, feed_version: '2026.06.15', feed_date: '2026-06-15T19:00:14.579Z' });
  const { createHash } = await import('node:crypto');
  t.is(out.sha256, createHash('sha256').update(readFileSync(fixture('kev-2026.06.15-head.json'))).digest('hex'));
  t.true((await kevFor(db, ['CVE-2026-50751'])).get('CVE-2026-50751')!.knownRansomware);

  const status = await rampart(['--json', 'feeds', 'status'], env);
  t.is(status.code, 0, status.stderr);
  const [kev, epss] = JSON.parse(status.stdout);
  t.like(kev, { feed: 'kev', current: { id: out.load_id, status: 'current', rows: 5, sha256: out.sha256, source: { kind: 'file', location: fixture('kev-2026.06.15-head.json') } }, schedule: { url: null } });
  t.like(epss, { feed: 'epss', current: null, recent: [] });
});

test.serial('rampart feeds load epss FILE reads gzip or standard input; a broken file exits 4 naming the line and changes nothing', async (t) => {
  const gz = await rampart(['feeds', 'load', 'epss', fixture('epss-2025-01-01-head.csv.gz')], env);
  t.is(gz.code, 0, gz.stderr);
  t.regex(gz.stderr, /EPSS v2023\.03\.01 \(2025-01-01T00:00:00\.000Z\) loaded from .*: 3 rows; 3 added, 0 removed, 0 changed; sha256 [0-9a-f]{64}/);

  const piped = await rampart(['--json', 'feeds', 'load', 'epss', '-'], env, readFileSync(fixture('epss-2026-07-28-head.csv'), 'utf8'));
  t.is(piped.code, 0, piped.stderr);
  t.like(JSON.parse(piped.stdout), { rows: 2, removed: 1, changed: 2 });
  const inForce = await db('feeds_current').where({ feed: 'epss' }).first();

  const broken = join(dir, 'broken.csv');
  writeFileSync(broken, readFileSync(fixture('epss-2025-01-01-head.csv'), 'utf8').replace('0.01328', '1.5'));
  const refused = await rampart(['feeds', 'load', 'epss', broken], env);
  t.is(refused.code, 4, refused.stderr);
  t.regex(refused.stderr, /EPSS feed was refused at line 4: epss 1\.5 is outside \[0, 1\]\. The feed in force is unchanged\./);
  const json = await rampart(['--json', 'feeds', 'load', 'epss', broken], env);
  t.is(json.code, 4);
  t.like(JSON.parse(json.stdout), { error: { code: 'invalid_feed', details: [{ field: 'line 4' }] }, exit_code: 4 });
  t.deepEqual(await db('feeds_current').where({ feed: 'epss' }).first(), inForce);

  const status = await rampart(['feeds', 'status'], env);
  t.is(status.code, 0, status.stderr);
  t.regex(status.stdout, /epss\s+refused\s+-\s+0/);
});

test.serial('wrong feed names, missing files and an unmigrated database are usage or unavailable errors', async (t) => {
  const name = await rampart(['feeds', 'load', 'nvd', fixture('kev-2026.06.15-head.json')], env);
  t.is(name.code, 2);
  t.regex(name.stderr, /expected kev or epss/);
  const missing = await rampart(['feeds', 'load', 'kev', join(dir, 'nope.json')], env);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /Cannot read .*nope\.json/);
  const empty = await createTestDatabase();
  try {
    const unmigrated = await rampart(['feeds', 'load', 'kev', fixture('kev-2026.06.15-head.json')], { DATABASE_URL: empty.url });
    t.is(unmigrated.code, 3);
    t.regex(unmigrated.stderr, /run `rampart migrate`/);
  } finally {
    await empty.drop();
  }
});
