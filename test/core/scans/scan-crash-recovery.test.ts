import test from 'ava';
import { spawn } from 'node:child_process';
import { ROOT, SOURCE_NODE_ARGS } from '../../_helpers/harness/spawn-service.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, eventsOf, waitForScan } from '../../_helpers/harness/scan-helpers.ts';

/** A worker PROCESS on the test app's database; resolves once it is ready. */
function startWorkerProcess(databaseUrl: string) {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'test/_helpers/harness/scan-worker-process.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: databaseUrl, WORKER_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('worker ready')) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`worker exited: ${out}`));
      }
    }, 50);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, ready, exited, output: () => out };
}

let t0: TestApp;
test.before(async () => {
  // This process serves the API only until the test starts its own worker.
  t0 = await createTestApp(engineOnly());
});
test.after.always(async () => t0?.close());

for (const outcome of ['failed', 'resumed'] as const) {
  test.serial(`a worker killed mid-scan leaves a scan another worker ${outcome === 'failed' ? 'fails with a reason' : 'resumes'}`, async (t) => {
    const worker = startWorkerProcess(t0.database.url);
    t.teardown(() => {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      if (worker.output().includes('"level":50')) t.log(worker.output());
    });
    await worker.ready;
    const assetId = await createAsset(t0, outcome === 'failed' ? '203.0.113.1' : '203.0.113.2');
    const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', options: { depth: 'slow' } } });
    const scanId = res.body.data.scan_id;
    // Running in the child, with the quick checks recorded and the slow one in flight.
    await waitForScan(t0, scanId, (s) => s.status === 'running' && s.checks.done === 2 && s.finding_count === 2, 90_000);
    const owner = (await t0.ctx.db('scans').where({ id: scanId }).first()).locked_by;
    t.regex(owner, new RegExp(`:${worker.child.pid}:`));
    worker.child.kill('SIGKILL');
    await worker.exited;
    // Nothing moves while the dead worker's lease runs.
    t.is((await t0.request('GET', `/api/scan/${scanId}`)).body.data.status, 'running');
    if (outcome === 'failed') {
      t0.ctx.config.scans.worker.maxClaims = 1;
      await t0.ctx.background.scans.start(['worker']);
      t.teardown(() => t0.ctx.background.scans.stop());
      const scan = await waitForScan(t0, scanId);
      t.is(scan.status, 'failed');
      t.regex(scan.error, /worker lost: the scan's lease expired 1 time/);
      t.is(scan.finding_count, 2, 'findings recorded before the crash are kept');
      t.is((await eventsOf(t0, 'scan.failed', (d) => d.scan_id === scanId)).length, 1);
      return;
    }
    t0.ctx.config.scans.worker.maxClaims = 2;
    await t0.ctx.background.scans.start(['worker']);
    t.teardown(() => t0.ctx.background.scans.stop());
    await waitForScan(t0, scanId, (s) => s.status === 'running' && t0.ctx.background.scans.worker!.runs(scanId));
    const row = await t0.ctx.db('scans').where({ id: scanId }).first();
    t.is(row.claims, 2);
    t.not(row.locked_by, owner);
    const checks = await t0.ctx.db('scan_checks').where({ scan_id: scanId }).orderBy('seq');
    t.deepEqual(checks.map((c: any) => c.status), ['completed', 'pending', 'error'], 'finished checks are not run again; the interrupted one is');
    t.is((await t0.request('POST', `/api/scan/${scanId}/cancel`)).statusCode, 200);
    const scan = await waitForScan(t0, scanId);
    t.is(scan.status, 'cancelled');
    t.is(scan.finding_count, 2, 'not duplicated by the resumed run');
  });
}
