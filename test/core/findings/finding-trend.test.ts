import test from 'ava';
import { findingStats } from '../../../core/findings/finding-stats.ts';
import { recountFindings } from '../../../core/findings/finding-recount.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// The stats' daily trend (trend.last_30_days.daily): 30 UTC days, per-day new and resolved.

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(() => t0?.close());

const DAY = 24 * 3600 * 1000;
const HIGH = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';

test('thirty UTC days, oldest first; new by creation day, resolved as distinct findings per day', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const asset = (await t0.request('POST', '/api/assets', { token, payload: { name: 'trend.example', type: 'domain' } })).body.data;
  const made = (await t0.request('POST', '/api/findings/bulk', {
    token,
    payload: { findings: [1, 2, 3, 4].map((i) => ({ asset_id: asset.id, title: `f${i}`, cvss_vector: HIGH })) },
  })).body.data.findings;
  const ids = made.map((f: { id: string }) => f.id) as string[];
  const db = t0.ctx.db;
  const now = Date.now();
  const today = now - (now % DAY);
  // f1 was created 5 days ago and f4 40 days ago (outside the window); f2 resolved twice today, f3 resolved 2 days ago.
  await db('findings').where({ id: ids[0] }).update({ created_at: today - 5 * DAY + 1000 });
  await db('findings').where({ id: ids[3] }).update({ created_at: today - 40 * DAY });
  for (const status of ['resolved', 'open', 'resolved']) await t0.request('PUT', `/api/findings/${ids[1]}/status`, { token, payload: { status } });
  await t0.request('PUT', `/api/findings/${ids[2]}/status`, { token, payload: { status: 'resolved' } });
  await db('finding_status_history').where({ finding_id: ids[2], new_status: 'resolved' }).update({ changed_at: today - 2 * DAY + 5 });
  // Those row edits went past the maintained counters; the operators' recount sees and repairs exactly them.
  const check = await recountFindings(db, { tenantId, repair: true });
  t.deepEqual(check.tenants[0]!.differences.map((d) => d.counter).sort(), [
    `daily ${new Date(today - 40 * DAY).toISOString().slice(0, 10)} created`,
    `daily ${new Date(today - 5 * DAY).toISOString().slice(0, 10)} created`,
    `daily ${new Date(today - 2 * DAY).toISOString().slice(0, 10)} resolved`,
    `daily ${new Date(today).toISOString().slice(0, 10)} created`,
    `daily ${new Date(today).toISOString().slice(0, 10)} resolved`,
  ].sort());
  t.true(check.tenants[0]!.repaired);
  t.is((await recountFindings(db, { tenantId })).inconsistent, 0);

  const { daily } = (await findingStats(db, tenantId, now)).trend.last_30_days;
  t.is(daily.length, 30);
  t.is(daily[29]!.date, new Date(today).toISOString().slice(0, 10));
  t.is(daily[0]!.date, new Date(today - 29 * DAY).toISOString().slice(0, 10));
  t.deepEqual(daily[29], { date: daily[29]!.date, new: 2, resolved: 1 });
  t.deepEqual(daily[27], { date: daily[27]!.date, new: 0, resolved: 1 });
  t.deepEqual(daily[24], { date: daily[24]!.date, new: 1, resolved: 0 });
  t.is(daily.reduce((n, d) => n + d.new, 0), 3);
  t.is(daily.reduce((n, d) => n + d.resolved, 0), 2);

  // Three days later the same rows have moved three places to the left.
  const later = (await findingStats(db, tenantId, now + 3 * DAY)).trend.last_30_days.daily;
  t.deepEqual(later.slice(0, 27).map((d) => [d.new, d.resolved]), daily.slice(3).map((d) => [d.new, d.resolved]));

  // Through the API: the same array, validated against the route's response schema.
  const stats = await t0.request('GET', '/api/findings/stats', { token });
  t.is(stats.statusCode, 200);
  t.deepEqual(stats.body.data.trend.last_30_days.daily.map((d: { new: number }) => d.new).slice(-1), [2]);
  // Another tenant sees none of it.
  const other = await t0.tenant();
  const theirs = (await t0.request('GET', '/api/findings/stats', { token: other.token })).body.data.trend.last_30_days.daily as Array<{ new: number; resolved: number }>;
  t.true(theirs.every((d) => d.new === 0 && d.resolved === 0));
});
