import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, eventsOf, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { createNetnsLab, type NetnsLab } from '../../_helpers/targets/netns-hosts.ts';
import { netnsGate } from '../../_helpers/harness/netns-gate.ts';

// A port scan long enough to watch: a host in a network namespace made here, 300 of its ports dropped by nftables.
const unavailable = await netnsGate('scan-progress test');

let lab: NetnsLab | null = null;
let t0: TestApp;
test.before(async () => {
  if (unavailable) return;
  lab = await createNetnsLab([{ open: [22], drop: [[100, 399]] }]);
  t0 = await createTestApp({
    plugins: { builtin: ['port'], external: [], baseDir: '.', builtinOptions: { port: { concurrency: 20, connect_retries: 0, min_connect_timeout_ms: 150 } } },
  });
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => {
  await t0?.close();
  await lab?.close();
});

(unavailable ? test.skip : test)('a port scan\'s progress moves with the ports done, not from 0 straight to 100', async (t) => {
  const host = lab!.hosts[0]!;
  const assetId = await createAsset(t0, host.address);
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'port', options: { ports: '1-400' } } });
  t.is(res.statusCode, 201, res.raw);
  const scanId = res.body.data.scan_id as string;
  const midway = await waitForScan(t0, scanId, (s) => s.status !== 'queued' && s.progress > 0 && s.progress < 100, 30_000);
  t.is(midway.status, 'running', 'progress is visible while the only check runs');
  const scan = await waitForScan(t0, scanId);
  t.is(scan.status, 'completed');
  t.is(scan.progress, 100);
  const progress = (await eventsOf(t0, 'scan.progress', (d) => d.scan_id === scanId)).map((d) => d.progress as number);
  t.true(progress.filter((p) => p > 0 && p < 99).length >= 3, `intermediate scan.progress events: ${progress.join(', ')}`);
  t.deepEqual(progress, [...progress].sort((a, b) => a - b), 'never backwards');
  const results = await t0.request('GET', `/api/scan/${scanId}/results`);
  t.deepEqual(results.body.data.map((f: { title: string }) => f.title), ['Open port 22/tcp (ssh)']);
});
