import test from 'ava';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../core/logger.ts';
import { FeedFetcher } from '../../../core/feeds/feed-fetcher.ts';
import { epssFor, kevFor } from '../../../core/feeds/feed-lookup.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/feeds/${name}`, import.meta.url));
const DAY = 86_400_000;

// The loopback feed server: what each path answers, changed by the tests.
const authorizations: Array<string | null> = [];
const routes = new Map<string, { status: number; body?: Buffer; location?: string }>();
let server: Server;
let base: string;
let app: TestApp;

test.before(async () => {
  server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? null);
    const route = routes.get(new URL(req.url!, 'http://x').pathname) ?? { status: 404 };
    res.writeHead(route.status, route.location ? { location: route.location } : {});
    res.end(route.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = (path: string) => `http://mirror:s3cret@127.0.0.1:${(server.address() as AddressInfo).port}${path}?token=hidden`;
  app = await createTestApp({
    outbound: { requireHttps: false, allowPrivateCidrs: ['127.0.0.0/8', '::1/128'] },
    feeds: { kev: { url: url('/kev.json'), intervalMs: DAY }, epss: { url: url('/epss-current.csv.gz'), intervalMs: DAY }, retryMs: 60_000, pollIntervalMs: 50, leaseMs: 5000 },
  });
});
test.after.always(async () => {
  await app?.close();
  server?.close();
});

const fetcher = () => app.ctx.services.feeds.fetcher;
const scheduleRow = (feed: string) => app.ctx.db('feed_fetches').where({ feed }).first();
async function runDue(feed: string): Promise<void> {
  await app.ctx.db('feed_fetches').where({ feed }).update({ due_at: 0 });
  const before = (await scheduleRow(feed)).last_attempt_at;
  await fetcher().worker.claimOnce();
  await eventually(async () => {
    const row = await scheduleRow(feed);
    return row.locked_by === null && row.last_attempt_at !== before && row.due_at > 0;
  });
}

test.serial('the scheduled fetch downloads both feeds from their (mirror) URLs, follows a redirect, records the loads without credentials', async (t) => {
  routes.set('/kev.json', { status: 200, body: fixture('kev-2026.06.15-head.json') });
  routes.set('/epss-current.csv.gz', { status: 302, location: '/epss_scores-2025-01-01.csv.gz' });
  routes.set('/epss_scores-2025-01-01.csv.gz', { status: 200, body: fixture('epss-2025-01-01-head.csv.gz') });
  await fetcher().ensureSchedule();
  const started = Date.now();
  await runDue('kev');
  await runDue('epss');
  t.true((await kevFor(app.ctx.db, ['CVE-2026-35273'])).get('CVE-2026-35273')!.knownRansomware);
  t.is((await epssFor(app.ctx.db, ['CVE-1999-0002'])).get('CVE-1999-0002')!.score, 0.01328);
  const kevRow = await scheduleRow('kev');
  t.like(kevRow, { failures: 0, last_error: null });
  t.true(Number(kevRow.due_at) >= started + DAY, 'the next fetch is an interval away');

  const res = await app.request('GET', '/api/feeds');
  t.is(res.statusCode, 200, res.raw);
  const [kev, epss] = res.body.data;
  t.like(kev, { feed: 'kev', current: { status: 'current', rows: 5, source: { kind: 'url', location: `${base}/kev.json` } }, schedule: { url: `${base}/kev.json`, interval_ms: DAY, failures: 0 } });
  t.like(epss, { feed: 'epss', current: { rows: 3, feed_version: 'v2023.03.01', feed_date: '2025-01-01T00:00:00.000Z', source: { location: `${base}/epss_scores-2025-01-01.csv.gz` } } }, 'the address the feed came from, after the redirect');
  t.deepEqual([...new Set(authorizations)], [`Basic ${Buffer.from('mirror:s3cret').toString('base64')}`], 'the mirror\'s user info goes as Basic authorization');
  t.notRegex(res.raw, /s3cret|hidden/, 'credentials and query strings of mirror URLs are never shown');
});

test.serial('a truncated download is refused: recorded with its error, retried after feeds.retryMs, the previous feed stays in force', async (t) => {
  const gz = fixture('epss-2025-01-01-head.csv.gz');
  routes.set('/epss_scores-2025-01-01.csv.gz', { status: 200, body: gz.subarray(0, gz.length - 12) });
  const inForce = await app.ctx.db('feeds_current').where({ feed: 'epss' }).first();
  const before = Date.now();
  await runDue('epss');
  const row = await scheduleRow('epss');
  t.is(row.failures, 1);
  t.regex(row.last_error, /EPSS feed was refused at byte \d+ of the gzip stream: the gzip data is truncated or corrupt/);
  t.true(Number(row.due_at) >= before + 60_000 && Number(row.due_at) < before + DAY);
  t.deepEqual(await app.ctx.db('feeds_current').where({ feed: 'epss' }).first(), inForce);

  routes.set('/epss_scores-2025-01-01.csv.gz', { status: 503 });
  await runDue('epss');
  t.like(await scheduleRow('epss'), { failures: 2, last_error: `HTTP 503 from ${base}/epss_scores-2025-01-01.csv.gz` });

  const res = await app.request('GET', '/api/feeds?recent=2');
  const epss = res.body.data[1];
  t.is(epss.current.id, inForce.load_id);
  t.like(epss.recent[0], { status: 'refused', source: { kind: 'url' } });
  t.regex(epss.recent[0].error, /truncated or corrupt/);
  t.is(epss.recent.length, 2);
  t.like(epss.schedule, { failures: 2 });
});

test.serial('two workers: a due feed is fetched by one of them only; a dead worker\'s fetch is taken over once its lease lapses', async (t) => {
  routes.set('/epss_scores-2025-01-01.csv.gz', { status: 200, body: fixture('epss-2025-01-01-head.csv.gz') });
  const other = new FeedFetcher(app.ctx.db, app.config.feeds, app.ctx.services.feeds.store, app.ctx.outbound, createLogger('silent'));
  await app.ctx.db('feed_fetches').update({ due_at: 0 });
  await app.ctx.db('feed_fetches').where({ feed: 'kev' }).update({ due_at: Date.now() + DAY });
  const claimed = await Promise.all([fetcher().worker.claimOnce(), other.worker.claimOnce()]);
  t.is(claimed[0]! + claimed[1]!, 1);
  await eventually(async () => (await scheduleRow('epss')).locked_by === null);
  t.like(await scheduleRow('epss'), { failures: 0, last_error: null });
  // A worker that died mid-fetch (kill -9) holds the row until its lease lapses; then another takes the fetch over.
  await app.ctx.db('feed_fetches').where({ feed: 'epss' }).update({ due_at: 0, locked_by: 'feed-dead-process', locked_until: Date.now() + 60_000 });
  t.is(await other.worker.claimOnce(), 0);
  await app.ctx.db('feed_fetches').where({ feed: 'epss' }).update({ locked_until: Date.now() - 1 });
  const loads = Number((await app.ctx.db('feed_loads').where({ feed: 'epss' }).count({ n: '*' }))[0]!.n);
  t.is(await other.worker.claimOnce(), 1);
  await eventually(async () => (await scheduleRow('epss')).locked_by === null);
  t.is(Number((await app.ctx.db('feed_loads').where({ feed: 'epss' }).count({ n: '*' }))[0]!.n), loads + 1);
  await other.stop();
});

test.serial('GET /api/feeds: tenants reading findings see counts and dates but no sources; other tokens are refused', async (t) => {
  const reader = await app.tenant({ scopes: ['findings:read'] });
  const res = await app.request('GET', '/api/feeds', { token: reader.token });
  t.is(res.statusCode, 200, res.raw);
  const [kev, epss] = res.body.data;
  t.like(kev, { current: { rows: 5, source: { kind: 'url', location: null } }, schedule: { url: null, last_error: null } });
  t.truthy(epss.current.sha256);
  t.is((await app.request('GET', '/api/feeds', { token: (await app.tenant({ scopes: ['assets:read'] })).token })).statusCode, 403);
  t.is((await app.request('GET', '/api/feeds', { token: null })).statusCode, 401);
  const bad = await app.request('GET', '/api/feeds?recent=500');
  t.is(bad.statusCode, 400);
  t.is(bad.body.error.code, 'validation_failed');
});
