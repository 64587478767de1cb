import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { exportRepository } from '../../../core/exports/export-repository.ts';
import { newId } from '../../../core/ids.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Every non-empty export runs in the background here, under the production rate limits.
let t0: TestApp;
let dir: string;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-export-worker-'));
  t0 = await createTestApp({ exports: { directory: dir, syncMaxRows: 0, maxPendingPerTenant: 10 }, rateLimit: DEFAULT_RATE_LIMITS });
});
test.after.always(async () => {
  await t0?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CRIT = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

async function tenantWithFindings(count: number) {
  const tenant = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `w-${Date.now()}-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } });
  const findings = Array.from({ length: count }, (_, i) => ({ asset_id: asset.body.data.id, title: `f${i}`, cvss_vector: CRIT }));
  await t0.request('POST', '/api/findings/bulk', { token: tenant.token, payload: { findings } });
  return tenant;
}

async function waitFor(token: string, id: string, done: (status: string) => boolean) {
  let body: any;
  for (let i = 0; i < 400; i++) {
    body = (await t0.request('GET', `/api/findings/exports/${id}`, { token })).body.data;
    if (done(body.status)) return body;
    await new Promise((r) => setTimeout(r, 25));
  }
  return body;
}

test.serial('an export whose file cannot be written is marked failed, and its download says so', async (t) => {
  const tenant = await tenantWithFindings(2);
  // A plain file where the tenant's folder should be: mkdir fails.
  writeFileSync(join(dir, tenant.tenantId), 'not a folder');
  const res = await t0.request('POST', '/api/findings/export', { token: tenant.token, payload: { format: 'json' } });
  t.is(res.statusCode, 202);
  t0.ctx.background.exports.start();
  const status = await waitFor(tenant.token, res.body.data.id, (s) => s === 'failed' || s === 'completed');
  t.is(status.status, 'failed');
  t.is(status.error, 'The export could not be written.');
  const download = await t0.request('GET', status.download_url, { token: tenant.token });
  t.is(download.statusCode, 409);
  t.is(download.body.error.code, 'export_failed');
  rmSync(join(dir, tenant.tenantId));
});

test.serial('a job left running by a dead worker is taken over once its lease lapses', async (t) => {
  const tenant = await tenantWithFindings(3);
  const id = newId('exp');
  const now = Date.now();
  await exportRepository.insert(t0.ctx.db, { id, tenantId: tenant.tenantId, format: 'csv', filters: {}, totalRows: 3, requestedBy: null, now });
  await t0.ctx.db('finding_exports').where({ id }).update({ status: 'running', locked_by: 'dead-worker', locked_until: now - 1, started_at: now });
  t0.ctx.background.exports.wake();
  const status = await waitFor(tenant.token, id, (s) => s === 'completed' || s === 'failed');
  t.is(status.status, 'completed');
  t.is(status.row_count, 3);
});

test.serial('claims are exclusive: a live lease is not taken, two claimers never get the same job', async (t) => {
  await t0.ctx.background.exports.stop();
  const tenant = await t0.tenant();
  const now = Date.now();
  const live = newId('exp');
  await exportRepository.insert(t0.ctx.db, { id: live, tenantId: tenant.tenantId, format: 'csv', filters: {}, totalRows: 0, requestedBy: null, now });
  await t0.ctx.db('finding_exports').where({ id: live }).update({ status: 'running', locked_by: 'other-worker', locked_until: now + 60_000 });
  const queued = newId('exp');
  await exportRepository.insert(t0.ctx.db, { id: queued, tenantId: tenant.tenantId, format: 'csv', filters: {}, totalRows: 0, requestedBy: null, now });
  const [a, b] = await Promise.all([exportRepository.claim(t0.ctx.db, 'w1', now, 10_000), exportRepository.claim(t0.ctx.db, 'w2', now, 10_000)]);
  const claimed = [a, b].filter(Boolean);
  t.is(claimed.length, 1);
  t.is(claimed[0]!.id, queued);
  t.is(await exportRepository.claim(t0.ctx.db, 'w3', now, 10_000), null);
  // Giving it back (shutdown) makes it claimable again.
  await exportRepository.requeue(t0.ctx.db, queued, claimed[0] === a ? 'w1' : 'w2', now);
  t.is((await exportRepository.claim(t0.ctx.db, 'w4', now, 10_000))?.id, queued);
});

test.serial('the sweep deletes expired files and leaves live ones', async (t) => {
  const tenant = await t0.tenant();
  const now = Date.now();
  mkdirSync(join(dir, tenant.tenantId), { recursive: true });
  const ids = [newId('exp'), newId('exp')];
  for (const [i, id] of ids.entries()) {
    await exportRepository.insert(t0.ctx.db, { id, tenantId: tenant.tenantId, format: 'csv', filters: {}, totalRows: 0, requestedBy: null, now });
    writeFileSync(join(dir, tenant.tenantId, `${id}.csv`), 'id\r\n');
    await t0.ctx.db('finding_exports').where({ id }).update({ status: 'completed', file_name: join(tenant.tenantId, `${id}.csv`), expires_at: i === 0 ? now - 1 : now + 60_000 });
  }
  await t0.ctx.services.exports.sweepExpired(now);
  const rows = await t0.ctx.db('finding_exports').whereIn('id', ids).orderBy('id');
  const byId = new Map(rows.map((r: { id: string; status: string }) => [r.id, r.status]));
  t.is(byId.get(ids[0]!), 'expired');
  t.is(byId.get(ids[1]!), 'completed');
  const download = await t0.request('GET', `/api/findings/exports/${ids[1]}/download`, { token: tenant.token });
  t.is(download.statusCode, 200);
  t.is((await t0.request('GET', `/api/findings/exports/${ids[0]}/download`, { token: tenant.token })).statusCode, 410);
});

test('POST /api/findings/export allows 5 requests per minute per tenant, then 429', async (t) => {
  const tenant = await t0.tenant({ tier: 'enterprise' });
  for (let i = 0; i < 5; i++) {
    const res = await t0.request('POST', '/api/findings/export', { token: tenant.token, payload: { format: 'json' } });
    t.is(res.statusCode, 200, `request ${i + 1}`);
  }
  const limited = await t0.request('POST', '/api/findings/export', { token: tenant.token, payload: { format: 'json' } });
  t.is(limited.statusCode, 429);
  t.is(limited.body.error.code, 'rate_limited');
  t.true(Number(limited.headers['retry-after']) >= 1);
  // Another tenant has its own budget.
  const other = await t0.tenant({ tier: 'enterprise' });
  t.is((await t0.request('POST', '/api/findings/export', { token: other.token, payload: { format: 'json' } })).statusCode, 200);
});
