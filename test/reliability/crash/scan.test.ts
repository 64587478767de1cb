// Crash case: a scan. The worker is killed while one check is in flight; a new worker
// resumes the scan: the checks finished before the crash are not run again, the
// interrupted one is (a check is the unit of resumption), and the scan completes with
// each finding and each event exactly once.
import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { eventsOf } from '../../_helpers/harness/scan-helpers.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';

const SCANNER = fileURLToPath(new URL('./crash-scanner/index.js', import.meta.url));
const hits: string[] = [];
let release = false;
const held = new Set<() => void>();
let target: Server;
let w: CrashWorld;
test.before(async () => {
  target = createServer((req, res) => {
    hits.push(req.url ?? '');
    const answer = () => res.end('ok');
    if (req.url === '/held' && !release) held.add(answer);
    else answer();
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  w = await crashWorld({
    plugins: { builtin: [], baseDir: '/', external: [{ module: SCANNER, capabilities: ['net:outbound'], options: {} }] },
    // One check at a time, so the crash finds finished, running and pending checks.
    scans: { pool: { maxThreads: 1, checkConcurrency: 1 }, worker: { maxClaims: 3 } },
  });
});
test.after.always(async () => {
  await w?.close();
  target?.closeAllConnections();
  await new Promise((resolve) => target?.close(resolve));
});

test('SIGKILL mid scan: a new worker resumes it; finished checks are not run again, every finding and event exactly once', async (t) => {
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  const asset = (await w.call('POST', '/api/assets', { name: url, type: 'url' })).id as string;
  const first = await w.worker();
  const scan = (await w.call('POST', '/api/scan/create', { asset_id: asset, scan_type: 'web_app' })).scan_id as string;
  await eventually(async () => hits.includes('/held'), 30_000);
  t.deepEqual(hits, ['/before', '/held'], 'one check finished, one in flight, one pending');
  // The finished check's finding is recorded before the crash.
  await eventually(async () => {
    const s = await w.call('GET', `/api/scan/${scan}`);
    return s.status === 'running' && s.finding_count === 1;
  }, 30_000);
  await first.crash();
  release = true;
  for (const answer of held) answer();
  await w.worker();

  const done = await eventually(async () => {
    const s = await w.call('GET', `/api/scan/${scan}`);
    return ['completed', 'failed', 'cancelled'].includes(s.status) ? s : undefined;
  }, 30_000);
  t.is(done.status, 'completed', String(done.error));
  t.is(done.finding_count, 3);
  const counts = tally(hits);
  t.is(counts.get('/held'), 2, 'the interrupted check ran again');
  t.is(counts.get('/before'), 1, 'finished before the crash, not run again');
  t.is(counts.get('/after'), 1, 'ran once, after the restart');
  const findings = (await w.app.ctx.db('findings').where({ tenant_id: w.tenantId }).select('id', 'title')) as Array<{ id: string; title: string }>;
  assertCounted(t, tally(findings.map((f) => f.title)), ['before', 'held', 'after'].map((n) => `Crash finding ${n}`), 1, 'findings per check');
  assertCounted(t, tally((await eventsOf(w.app, 'finding.new')).map((d) => d.finding_id as string)), findings.map((f) => f.id), 1, 'finding.new events per finding');
  assertCounted(t, tally((await eventsOf(w.app, 'scan.completed')).map((d) => d.scan_id as string)), [scan], 1, 'scan.completed events');
  t.deepEqual(await eventsOf(w.app, 'scan.failed'), []);
  const checks = await w.app.ctx.db('scan_checks').where({ scan_id: scan }).select('check_id', 'status');
  t.deepEqual(checks.map((c: any) => c.status), ['completed', 'completed', 'completed']);
  t.deepEqual(w.workerErrors(), []);
});
