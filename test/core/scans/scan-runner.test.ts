import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, eventsOf, waitForScan } from '../../_helpers/harness/scan-helpers.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp(engineOnly());
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => t0?.close());

async function startScan(name: string, options: Record<string, unknown>, scanType = 'web_app'): Promise<{ assetId: string; scanId: string }> {
  const assetId = await createAsset(t0, name);
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: scanType, options } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return { assetId, scanId: res.body.data.scan_id };
}

const checkRows = (scanId: string) => t0.ctx.db('scan_checks').where({ scan_id: scanId }).orderBy('seq');

test.serial('cancel stops a running scan; findings found so far stay readable', async (t) => {
  const { scanId } = await startScan('198.51.100.1', { depth: 'slow' });
  await waitForScan(t0, scanId, (s) => s.status === 'running' && s.finding_count === 2);
  const res = await t0.request('POST', `/api/scan/${scanId}/cancel`);
  t.is(res.statusCode, 200);
  t.is(res.body.data.status, 'cancelled');
  // The slow check honours its signal: its attempt is recorded as cancelled shortly after.
  const started = Date.now();
  while ((await checkRows(scanId)).some((c: any) => c.status === 'pending') && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 20));
  const rows = await checkRows(scanId);
  t.is(rows.find((c: any) => c.check_id === 'engine:slow').status, 'cancelled');
  t.false(t0.ctx.background.scans.worker!.runs(scanId), 'the worker let go of the scan');
  const scan = (await t0.request('GET', `/api/scan/${scanId}`)).body.data;
  t.is(scan.status, 'cancelled');
  t.is((await t0.request('GET', `/api/scan/${scanId}/results`)).body.meta.total, 2);
  t.is((await eventsOf(t0, 'scan.completed', (d) => d.scan_id === scanId)).length, 0);
});

test.serial('cancel also stops a check that blocks its thread and ignores its signal', async (t) => {
  const { scanId } = await startScan('198.51.100.2', { depth: 'hang' });
  await waitForScan(t0, scanId, (s) => s.status === 'running' && s.checks.done >= 1);
  await new Promise((r) => setTimeout(r, 200));
  t.is((await t0.request('POST', `/api/scan/${scanId}/cancel`)).statusCode, 200);
  const started = Date.now();
  while ((await checkRows(scanId)).some((c: any) => c.status === 'pending') && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
  const slow = (await checkRows(scanId)).find((c: any) => c.check_id === 'engine:slow');
  t.is(slow.status, 'cancelled', 'the thread was terminated after the grace period');
  t.false(t0.ctx.background.scans.worker!.runs(scanId));
});

test.serial('options.timeout ends the scan as failed with error "timeout", keeping its findings', async (t) => {
  const { scanId, assetId } = await startScan('198.51.100.3', { depth: 'slow', timeout: 1 });
  const scan = await waitForScan(t0, scanId);
  t.is(scan.status, 'failed');
  t.is(scan.error, 'timeout');
  t.is(scan.finding_count, 2);
  t.is((await t0.request('GET', `/api/scan/${scanId}/results`)).body.meta.total, 2);
  const failed = await eventsOf(t0, 'scan.failed', (d) => d.scan_id === scanId);
  t.deepEqual(failed, [{ scan_id: scanId, asset_id: assetId, error: 'timeout' }]);
  t.truthy((await t0.request('GET', `/api/assets/${assetId}`)).body.data.last_scan);
});

test('a re-scan deduplicates findings: last_seen moves, no finding.new; a resolved finding is reopened with history', async (t) => {
  const { scanId, assetId } = await startScan('198.51.100.4', {});
  await waitForScan(t0, scanId);
  const first = (await t0.request('GET', `/api/findings?asset_id=${assetId}`)).body;
  t.is(first.meta.total, 2);
  const a = first.data.find((f: any) => f.title === 'Engine finding A');
  const seenBefore = (await t0.ctx.db('findings').where({ id: a.id }).first()).last_seen;
  t.is((await t0.request('PUT', `/api/findings/${a.id}/status`, { payload: { status: 'resolved' } })).statusCode, 200);
  const riskResolved = (await t0.request('GET', `/api/assets/${assetId}`)).body.data.risk_score;
  const second = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app' } });
  const secondId = second.body.data.scan_id;
  await waitForScan(t0, secondId);
  const after = (await t0.request('GET', `/api/findings?asset_id=${assetId}`)).body;
  t.is(after.meta.total, 2, 'no duplicates');
  t.is((await eventsOf(t0, 'finding.new', (d) => d.scan_id === secondId)).length, 0, 'finding.new only for new findings');
  const reopened = (await t0.request('GET', `/api/findings/${a.id}`)).body.data;
  t.is(reopened.status, 'open');
  t.is(reopened.scan_id, scanId, 'scan_id stays the scan that found it first');
  t.deepEqual(reopened.status_history.map((h: any) => [h.old_status, h.new_status]), [[null, 'open'], ['open', 'resolved'], ['resolved', 'open']]);
  t.is(reopened.status_history[2].changed_by, `scan:${secondId}`);
  const changed = await eventsOf(t0, 'finding.status_changed', (d) => d.finding_id === a.id && d.new_status === 'open');
  t.is(changed.length, 1);
  const row = await t0.ctx.db('findings').where({ id: a.id }).first();
  t.true(Number(row.last_seen) > Number(seenBefore));
  t.true((await t0.request('GET', `/api/assets/${assetId}`)).body.data.risk_score > riskResolved, 'risk counts the reopened finding again');
  t.is((await t0.request('GET', `/api/scan/${secondId}/results`)).body.meta.total, 2, 'the re-scan lists what it saw again');
  const third = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', options: { depth: 'less' } } });
  t.is(third.statusCode, 201, third.raw);
  await waitForScan(t0, third.body.data.scan_id);
  t.is((await t0.request('GET', `/api/scan/${third.body.data.scan_id}/results`)).body.meta.total, 1);
});

test.serial('the queue takes priority before age (runs first, with the worker stopped)', async (t) => {
  const worker = t0.ctx.background.scans.worker!;
  await t0.ctx.background.scans.stop();
  t.teardown(() => t0.ctx.background.scans.start(['worker']));
  t.is(worker.active, 0);
  const low = await startScan('198.51.100.5', {});
  await t0.ctx.db('scans').where({ id: low.scanId }).update({ priority: 'low', priority_rank: 0 });
  const normal = await startScan('198.51.100.6', {});
  const high = await startScan('198.51.100.7', {});
  await t0.ctx.db('scans').where({ id: high.scanId }).update({ priority: 'high', priority_rank: 2 });
  const { scanRepository } = await import('../../../core/scans/scan-repository.ts');
  const order: string[] = [];
  for (let i = 0; i < 3; i++) {
    const row = await scanRepository.claim(t0.ctx.db, `test#${i}`, Date.now(), 60_000);
    order.push(row!.id);
  }
  t.deepEqual(order, [high.scanId, normal.scanId, low.scanId]);
  t.is(await scanRepository.claim(t0.ctx.db, 'test#x', Date.now(), 60_000), null, 'leased scans are not claimed again');
  // An expired lease is claimed again before any queued scan.
  await t0.ctx.db('scans').where({ id: normal.scanId }).update({ locked_until: Date.now() - 1 });
  const again = await scanRepository.claim(t0.ctx.db, 'test#y', Date.now(), 60_000);
  t.is(again!.id, normal.scanId);
  t.is(again!.claims, 2);
  await t0.ctx.db('scans').whereIn('id', [low.scanId, normal.scanId, high.scanId]).update({ status: 'cancelled', active_asset_id: null });
});
