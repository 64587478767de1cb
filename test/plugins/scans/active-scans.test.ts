import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { startInjectionSite, type InjectionSite } from '../../_helpers/targets/injection-sites.ts';
import { loopbackAsset } from '../../../core/scans/active-scan-rule.ts';

let trial: TestApp;
let engine: TestApp;
let strict: TestApp;
let site: InjectionSite;

test.before(async () => {
  site = await startInjectionSite('vulnerable');
  // config/test.json is the loopback trial: requireVerifiedAsset and denySelf both false.
  // The rules test queues scans of TEST-NET addresses that nothing answers; `trial` runs no
  // worker, so they wait in its queue instead of holding the engine's threads for ~30 s
  // ahead of the scan of the injection site.
  trial = await createTestApp({ plugins: { builtin: ['web_app'] } });
  engine = await createTestApp({ plugins: { builtin: ['web_app'], builtinOptions: { web_app: { time_delay_ms: 600 } } }, scans: { worker: { leaseMs: 30_000, heartbeatMs: 500 } } });
  await engine.ctx.background.scans.start(['worker']);
  strict = await createTestApp({ plugins: { builtin: ['web_app'] }, scans: { denySelf: true } });
});
test.after.always(async () => {
  await trial?.close();
  await engine?.close();
  await strict?.close();
  await site?.close();
});

const create = (app: TestApp, assetId: string, options: Record<string, unknown>) => app.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', options } });

test('loopback assets are what the trial switch covers', (t) => {
  for (const name of ['http://127.0.0.1:8080/', 'http://127.9.9.9/', 'http://[::1]:81/', 'http://localhost/', 'http://app.localhost/']) t.true(loopbackAsset({ type: 'url', name }), name);
  t.true(loopbackAsset({ type: 'ip', name: '127.0.0.1' }));
  for (const name of ['http://10.0.0.1/', 'http://192.0.2.10/', 'http://example.com/']) t.false(loopbackAsset({ type: 'url', name }), name);
});

test('active checks need a verified asset; the loopback trial opens them on loopback only; schedules follow the same rule', async (t) => {
  const outside = await createAsset(trial, 'http://192.0.2.10/', 'url');
  const refused = await create(trial, outside, { active: true });
  t.is(refused.statusCode, 400);
  t.is(refused.body.error.code, 'active_scan_not_allowed');
  t.is((await trial.ctx.db('scans').where({ asset_id: outside })).length, 0, 'nothing queued');
  const schedule = await trial.request('POST', '/api/scan-schedules', { payload: { asset_id: outside, cron: '0 3 * * *', scan_type: 'web_app', options: { active: true } } });
  t.is(schedule.statusCode, 400);
  t.is(schedule.body.error.code, 'active_scan_not_allowed');
  t.is((await create(trial, outside, { active: false })).statusCode, 201, 'passive scans are not affected');
  // Ownership verified: allowed anywhere the scan may go.
  const verified = await createAsset(trial, 'http://192.0.2.11/', 'url');
  await trial.ctx.db('assets').where({ id: verified }).update({ verified: true });
  t.is((await create(trial, verified, { active: true })).statusCode, 201);
  // Safety keys on (denySelf): the trial switch is off, an unverified asset is refused.
  const strictAsset = await createAsset(strict, 'http://192.0.2.12/', 'url');
  t.is((await create(strict, strictAsset, { active: true })).body.error.code, 'active_scan_not_allowed');
  t.is((await create(strict, strictAsset, { active: 'yes' })).statusCode, 400);
});

test('an active web_app scan of a loopback app through the engine reports the planted injections with their proofs', async (t) => {
  // A corner of the vulnerable app (two linked endpoints) keeps the scan short.
  const assetId = await createAsset(engine, `${site.url}/mini`, 'url');
  const res = await create(engine, assetId, { active: true, max_depth: 1 });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(engine, res.body.data.scan_id, undefined, 150_000);
  t.is(scan.status, 'completed');
  const detail = (await engine.request('GET', `/api/scan/${scan.scan_id}`)).body.data;
  t.log(detail.check_results.map((c: { check_id: string; duration_ms: number }) => `${c.check_id} ${c.duration_ms}`).join("\n"));
  t.is(detail.checks.failed, 0, JSON.stringify(detail.check_results.filter((c: { status: string }) => c.status !== 'completed')));
  t.true(detail.options.active);
  const found = (await engine.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`)).body.data as Array<{ title: string; severity: string; id: string }>;
  const injections = found.filter((f) => /injection|XSS|traversal/.test(f.title)).map((f) => f.title).sort();
  t.deepEqual(injections, ['Reflected XSS in parameter q of GET /search', 'SQL injection in parameter id of GET /item']);
  const sqli = found.find((f) => f.title === 'SQL injection in parameter id of GET /item')!;
  t.is(sqli.severity, 'critical');
  const detailRes = await engine.request('GET', `/api/findings/${sqli.id}`);
  t.is(detailRes.statusCode, 200, detailRes.raw);
  const evidence = detailRes.body.data.evidence;
  t.like(evidence, { method: 'GET', parameter: 'id', technique: 'database error message' });
  t.regex(evidence.request, /^GET http:\/\/127\.0\.0\.1:\d+\/item\?id=1%27$/);
});
