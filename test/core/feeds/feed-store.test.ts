import test from 'ava';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createDb, type Db } from '../../../core/db/create-db.ts';
import { changedCves, epssFor, kevFor } from '../../../core/feeds/feed-lookup.ts';
import { FeedStore } from '../../../core/feeds/feed-store.ts';
import { FeedRefusedError, type FeedKind } from '../../../core/feeds/feed-types.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

const FIXTURES = new URL('../../fixtures/feeds/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const kevDoc = () => JSON.parse(fixture('kev-2026.06.15-head.json').toString('utf8')) as { count: number; catalogVersion: string; dateReleased: string; vulnerabilities: Array<Record<string, unknown>> };
const file = { kind: 'file' as const, location: '/tmp/feed' };

let database: TestDatabase;
let db: Db;
let store: FeedStore;

test.before(async () => {
  database = await createTestDatabase({ migrated: true });
  db = createDb(database.url);
  store = new FeedStore(db, { maxBytes: 8 * 1024 * 1024, keepChangeSets: 2 });
});
test.after.always(async () => {
  await db?.destroy();
  await database?.drop();
});

async function* chunked(bytes: Buffer, size = 7): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const load = (feed: FeedKind, bytes: Buffer | string) => store.load(feed, file, chunked(Buffer.from(bytes), 64));

async function refusedAt(t: import('ava').ExecutionContext, feed: FeedKind, bytes: Buffer | string, where: RegExp): Promise<void> {
  const before = await db('feeds_current').where({ feed }).first();
  const err = await t.throwsAsync(load(feed, bytes), { instanceOf: FeedRefusedError });
  t.regex(err!.where, where, err!.message);
  t.is(err!.statusCode, 400);
  t.deepEqual(await db('feeds_current').where({ feed }).first(), before, 'the feed in force is unchanged');
  const last = await db('feed_loads').where({ feed }).orderBy('started_at', 'desc').orderBy('id', 'desc').first();
  t.is(last.status, 'refused');
  t.truthy(last.error);
  const table = feed === 'kev' ? 'kev_entries' : 'epss_scores';
  t.is(Number((await db(table).where('load_id', last.id).count({ n: '*' }))[0]!.n), 0, 'no staged rows are left behind');
}

test.serial('EPSS: plain and gzipped loads; a second load records exactly what changed; lookups read the feed in force', async (t) => {
  const gz = fixture('epss-2025-01-01-head.csv.gz');
  const first = await load('epss', gz);
  t.like(first, { feed: 'epss', rows: 3, added: 3, removed: 0, changed: 0, feedDate: '2025-01-01T00:00:00.000Z', feedVersion: 'v2023.03.01', bytes: gz.length });
  t.regex(first.sha256, /^[0-9a-f]{64}$/);
  const scores = await epssFor(db, ['CVE-1999-0001', 'CVE-1999-0003', 'CVE-2000-0001']);
  t.deepEqual(scores.get('CVE-1999-0001'), { cve: 'CVE-1999-0001', score: 0.00383, percentile: 0.72779, feedDate: '2025-01-01T00:00:00.000Z', modelVersion: 'v2023.03.01' });
  t.false(scores.has('CVE-2000-0001'));

  // The same content uncompressed: same rows, nothing changed, another sha256.
  const plain = await load('epss', fixture('epss-2025-01-01-head.csv'));
  t.like(plain, { rows: 3, added: 0, removed: 0, changed: 0 });
  t.not(plain.sha256, first.sha256);

  const heard: string[] = [];
  store.onLoaded((r) => void heard.push(`${r.feed} ${r.loadId} ${r.removed}/${r.changed}`));
  store.onLoaded(() => {
    throw new Error('a listener that fails does not undo the load');
  });
  const second = await load('epss', fixture('epss-2026-07-28-head.csv'));
  t.deepEqual(heard, [`epss ${second.loadId} 1/2`]);
  t.like(second, { rows: 2, added: 0, removed: 1, changed: 2, feedDate: '2026-07-28T12:00:27.000Z', feedVersion: 'v2026.06.15' });
  t.deepEqual(await changedCves(db, second.loadId), [
    { cve: 'CVE-1999-0001', kind: 'changed' }, { cve: 'CVE-1999-0002', kind: 'changed' }, { cve: 'CVE-1999-0003', kind: 'removed' },
  ]);
  t.deepEqual(await changedCves(db, second.loadId, { after: 'CVE-1999-0001', limit: 1 }), [{ cve: 'CVE-1999-0002', kind: 'changed' }]);
  const now = await epssFor(db, ['CVE-1999-0001', 'CVE-1999-0003']);
  t.is(now.get('CVE-1999-0001')!.score, 0.03351);
  t.false(now.has('CVE-1999-0003'), 'a CVE the new feed dropped has no score any more');
  // Superseded loads' rows are removed once the new one is in force; only two change sets are kept.
  t.deepEqual((await db('epss_scores').distinct('load_id').pluck('load_id')), [second.loadId]);
  // keepChangeSets 2: the newest two loads (plain, second) keep theirs; plain changed nothing, the first load's set is gone.
  t.deepEqual(await db('feed_changes').distinct('load_id').pluck('load_id'), [second.loadId]);
});

test.serial('KEV: a real-format catalog loads; an entry changed, one added and one removed are what the next load reports', async (t) => {
  const doc = kevDoc();
  const first = await load('kev', JSON.stringify(doc));
  t.like(first, { feed: 'kev', rows: 5, added: 5, feedVersion: '2026.06.15', feedDate: '2026-06-15T19:00:14.579Z' });
  const facts = await kevFor(db, ['CVE-2026-35273', 'CVE-2026-20262', 'CVE-1999-0001']);
  t.like(facts.get('CVE-2026-35273'), { dateAdded: '2026-06-12', dueDate: '2026-06-15', knownRansomware: true, catalogVersion: '2026.06.15', cwes: ['CWE-306'] });
  t.false(facts.get('CVE-2026-20262')!.knownRansomware);
  t.false(facts.has('CVE-1999-0001'));

  const next = kevDoc();
  next.catalogVersion = '2026.06.16';
  next.vulnerabilities[0]!.knownRansomwareCampaignUse = 'Known';
  next.vulnerabilities.pop();
  next.vulnerabilities.push({ ...next.vulnerabilities[1], cveID: 'CVE-2021-44228', dateAdded: '2021-12-10', dueDate: '2021-12-24' });
  const second = await load('kev', JSON.stringify(next));
  t.like(second, { rows: 5, added: 1, removed: 1, changed: 1, feedVersion: '2026.06.16' });
  t.deepEqual(await changedCves(db, second.loadId), [
    { cve: 'CVE-2021-44228', kind: 'added' }, { cve: 'CVE-2022-0492', kind: 'removed' }, { cve: 'CVE-2026-20262', kind: 'changed' },
  ]);
  t.true((await kevFor(db, ['CVE-2026-20262'])).get('CVE-2026-20262')!.knownRansomware);
});

test.serial('a malformed or truncated EPSS feed is refused where it broke, and the previous feed stays in force', async (t) => {
  const good = fixture('epss-2025-01-01-head.csv').toString('utf8');
  const gz = fixture('epss-2025-01-01-head.csv.gz');
  await refusedAt(t, 'epss', good.replace('cve,epss,percentile', 'cve,score,percentile'), /^line 2$/);
  await refusedAt(t, 'epss', good.replace(/^#.*\n/, ''), /^line 1$/);
  await refusedAt(t, 'epss', good.replace('CVE-1999-0002,0.01328', 'CVE-1999-0002,1.01328'), /^line 4$/);
  await refusedAt(t, 'epss', good.replace('CVE-1999-0003', 'CVE-99-3'), /^line 5$/);
  await refusedAt(t, 'epss', good.replace('0.92305', 'NaN'), /^line 5$/);
  await refusedAt(t, 'epss', good.slice(0, -4), /^line 5$/);
  await refusedAt(t, 'epss', gz.subarray(0, gz.length - 10), /gzip/);
  await refusedAt(t, 'epss', good.split('\n').slice(0, 2).join('\n') + '\n', /end of file/);
  await refusedAt(t, 'epss', good + 'CVE-1999-0001,0.1,0.2\n', /^line/);
  const err = await t.throwsAsync(load('epss', good.replace('cve,epss,percentile', 'cve,score,percentile')));
  t.regex(err!.message, /EPSS feed was refused at line 2: expected the header "cve,epss,percentile"/);
});

test.serial('a malformed KEV catalog is refused with the JSON path or line, and the previous catalog stays in force', async (t) => {
  const doc = kevDoc();
  const text = JSON.stringify(doc, null, 2);
  await refusedAt(t, 'kev', text.slice(0, 3000), /byte|line/);
  await refusedAt(t, 'kev', text.replace('"count": 5', '"count": 6'), /^\$\.count$/);
  await refusedAt(t, 'kev', text.replace('"CVE-2026-11645"', '"CVE-2026-116x"'), /^\$\.vulnerabilities\[2\]\.cveID$/);
  await refusedAt(t, 'kev', text.replace('"2026-06-29"', '"29/06/2026"'), /^\$\.vulnerabilities\[0\]\.dueDate$/);
  await refusedAt(t, 'kev', text.replace('"CVE-2026-11645"', '"CVE-2026-20262"'), /^\$\.vulnerabilities\[2\]\.cveID$/);
  await refusedAt(t, 'kev', gzipSync(text).subarray(0, 200), /gzip/);
  await refusedAt(t, 'kev', JSON.stringify({ ...doc, count: 0, vulnerabilities: [] }), /^\$\.vulnerabilities$/);
  await refusedAt(t, 'kev', '{"title": "not a catalog"}', /^\$\.catalogVersion$/);
});

test.serial('a feed larger than feeds.maxBytes is refused; a large EPSS feed streams in batches', async (t) => {
  const small = new FeedStore(db, { maxBytes: 100, keepChangeSets: 2 });
  await t.throwsAsync(small.load('epss', file, chunked(fixture('epss-2025-01-01-head.csv'))), { instanceOf: FeedRefusedError, message: /larger than feeds\.maxBytes/ });
  const rows = Array.from({ length: 20_000 }, (_, i) => `CVE-2024-${String(10000 + i)},0.${String(i % 99999).padStart(5, '0')},0.50000`);
  const big = `#model_version:v2025.03.14,score_date:2026-11-27T00:00:00+0000\ncve,epss,percentile\n${rows.join('\n')}\n`;
  const result = await load('epss', gzipSync(big));
  t.like(result, { rows: 20_000, feedDate: '2026-11-27T00:00:00.000Z' });
  t.is((await epssFor(db, ['CVE-2024-10042'])).get('CVE-2024-10042')!.score, 0.00042);
});

test.serial('two loads of one feed at once: both are accepted in turn, and the later one diffs against the earlier', async (t) => {
  const [a, b] = await Promise.all([load('epss', fixture('epss-2025-01-01-head.csv')), load('epss', fixture('epss-2026-07-28-head.csv'))]);
  const inForce = (await db('feeds_current').where({ feed: 'epss' }).first()).load_id;
  const [first, second] = inForce === b.loadId ? [a, b] : [b, a];
  t.is(inForce, second!.loadId);
  t.like(await db('feed_loads').where({ id: first!.loadId }).first(), { status: 'superseded' });
  // Whichever came second, its change set is against the first, not against what was in force before both.
  const expected = second === b ? { removed: 1, changed: 2, added: 0 } : { removed: 0, changed: 2, added: 1 };
  t.like(second, expected);
  t.deepEqual(await db('epss_scores').distinct('load_id').pluck('load_id'), [second!.loadId]);
});
