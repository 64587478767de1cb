// Crash case: a large background export. The worker is killed while it is writing the
// file (partly written); a new worker takes the job over once its lease lapses and
// writes the whole file again: the download has every row exactly once.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';

const ROWS = 3000;
const CRIT = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const directory = mkdtempSync(join(tmpdir(), 'rampart-crash-export-'));
let w: CrashWorld;
test.before(async () => {
  w = await crashWorld({ exports: { directory, syncMaxRows: 100 } });
});
test.after.always(async () => {
  await w?.close();
  rmSync(directory, { recursive: true, force: true });
});

test(`SIGKILL mid export of ${ROWS} rows: a new worker writes the file again, every row exactly once`, async (t) => {
  const asset = (await w.call('POST', '/api/assets', { name: 'export.example.com', type: 'domain' })).id as string;
  for (let from = 0; from < ROWS; from += 1000) {
    const findings = Array.from({ length: 1000 }, (_, i) => ({ asset_id: asset, title: `finding ${from + i}`, cvss_vector: CRIT, description: `row ${from + i}` }));
    await w.call('POST', '/api/findings/bulk', { findings });
  }
  const res = await w.app.request('POST', '/api/findings/export', { token: w.token, payload: { format: 'csv' } });
  t.is(res.statusCode, 202, res.raw);
  const job = res.body.data;
  // The worker's temporary file is made a FIFO: its write stalls once the pipe is full,
  // so the kill lands mid-file, with rows already written, whatever the machine's speed.
  mkdirSync(join(directory, w.tenantId), { recursive: true });
  const part = join(directory, w.tenantId, `${job.id}.csv.part`);
  execFileSync('mkfifo', [part]);
  const first = await w.worker();
  const reader = createReadStream(part);
  let written = 0;
  reader.on('data', (chunk) => {
    written += chunk.length;
    if (written >= 32 * 1024) reader.pause();
  });
  await eventually(async () => written >= 32 * 1024, 30_000);
  t.is((await w.call('GET', `/api/findings/exports/${job.id}`)).status, 'running');
  await first.crash();
  reader.destroy();
  unlinkSync(part);
  await w.worker();

  const done = await eventually(async () => {
    const s = await w.call('GET', `/api/findings/exports/${job.id}`);
    return ['completed', 'failed'].includes(s.status) ? s : undefined;
  }, 30_000);
  t.is(done.status, 'completed', String(done.error));
  t.is(done.row_count, ROWS);
  const download = await w.app.request('GET', done.download_url, { token: w.token });
  t.is(download.statusCode, 200);
  const rows = parse(download.raw, { columns: true, bom: true }) as Array<{ id: string; title: string }>;
  t.is(rows.length, ROWS, 'export rows = findings');
  const ids = (await w.app.ctx.db('findings').where({ tenant_id: w.tenantId }).select('id')).map((f: any) => f.id as string);
  assertCounted(t, tally(rows.map((r) => r.id)), ids, 1, 'rows per finding');
  t.deepEqual(readdirSync(join(directory, w.tenantId)), [`${job.id}.csv`], 'no partial file left behind');
  t.deepEqual(w.workerErrors(), []);
});
