import test from 'ava';
import { seededRandom } from '../../_helpers/harness/seeded-random.ts';
import { recountFindings } from '../../../core/findings/finding-recount.ts';
import { findingStats } from '../../../core/findings/finding-stats.ts';
import { ingestBatch, type Mapped } from '../../../core/imports/import-ingest.ts';
import { recordScanFindings } from '../../../core/scans/scan-findings.ts';
import { FINDING_STATUSES, type FindingStatus } from '../../../core/domain/finding-status.ts';
import type { FindingReport } from '../../../core/plugin-api/index.ts';
import { SEVERITY_VECTORS } from '../../_helpers/harness/severity-vectors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// The maintained finding counters (migration 018) against a full recount of the rows,
// after a random sequence of every kind of finding write, on whichever engine runs the suite.

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(() => t0?.close());

const VECTORS = Object.values(SEVERITY_VECTORS);


interface World {
  tenantId: string;
  assets: string[];
  scans: Map<string, string>;
}

async function newAsset(w: World, n: number): Promise<void> {
  const created = await t0.ctx.services.assets.create(w.tenantId, { name: `counted-${n}-${Math.random().toString(36).slice(2)}.example`, type: 'domain' });
  w.assets.push(created.id);
}

async function findingIds(tenantId: string): Promise<Array<{ id: string; status: FindingStatus }>> {
  return t0.ctx.db('findings').where({ tenant_id: tenantId }).orderBy('id').select('id', 'status');
}

test('after a random sequence of creates, bulk creates, imports, scan dedups and reopenings, status moves and asset deletions, the counters equal a recount', async (t) => {
  const rand = seededRandom(17);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const worlds: World[] = [];
  for (let i = 0; i < 3; i++) {
    const w: World = { tenantId: (await t0.tenant()).tenantId, assets: [], scans: new Map() };
    for (let j = 0; j < 2; j++) await newAsset(w, j);
    worlds.push(w);
  }
  const svc = t0.ctx.services;
  const kinds = new Map<string, number>();
  for (let step = 0; step < 120; step++) {
    const w = pick(worlds);
    const r = rand();
    const kind = r < 0.15 ? 'create' : r < 0.25 ? 'bulk' : r < 0.37 ? 'import' : r < 0.47 ? 'scan' : r < 0.85 ? 'status' : r < 0.93 ? 'delete-asset' : 'new-asset';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const asset = w.assets.length ? pick(w.assets) : null;
    if (kind === 'new-asset' || !asset) {
      await newAsset(w, step);
    } else if (kind === 'create' || kind === 'bulk') {
      const n = kind === 'create' ? 1 : 2 + Math.floor(rand() * 5);
      const inputs = Array.from({ length: n }, (_, i) => ({ asset_id: asset, title: `step ${step} finding ${i}`, cvss_vector: pick(VECTORS), status: pick(FINDING_STATUSES) }));
      await svc.findings.create(w.tenantId, 'tester', inputs, kind === 'bulk');
    } else if (kind === 'import') {
      // Few distinct locations, so later imports hit earlier findings (dedup, and reopening resolved ones).
      const batch: Mapped[] = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
        assetId: asset,
        result: {
          where: 'test', targets: [], checkId: 'test:check', location: `place-${Math.floor(rand() * 6)}`, title: 'Imported', description: '', remediation: '',
          score: { severity: 'high', cvss: 7.5, cvssVector: VECTORS[1]!, basis: 'vector' }, evidence: {}, references: [], tags: [], observedAt: null,
          initialStatus: pick(['open', 'accepted_risk', 'false_positive'] as const),
        },
      }));
      await ingestBatch({ tenantId: w.tenantId, actor: 'tester', scanId: null, now: Date.now(), findings: svc.findings, outbox: t0.ctx.outbox }, batch);
    } else if (kind === 'scan') {
      let scanId = w.scans.get(asset);
      if (!scanId) {
        scanId = (await svc.scans.create(w.tenantId, { asset_id: asset, scan_type: 'dns' } as never)).row.id;
        w.scans.set(asset, scanId);
      }
      const reports: FindingReport[] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ title: 'Scanned', cvss_vector: pick(VECTORS), location: `spot-${Math.floor(rand() * 4)}` }) as FindingReport);
      await t0.ctx.outbox.transaction((uow) => recordScanFindings(uow, svc.findings, { tenantId: w.tenantId, assetId: asset, assetName: 'x', scanId: scanId!, checkId: 'dns:test', now: Date.now() }, reports));
    } else if (kind === 'status') {
      const rows = await findingIds(w.tenantId);
      if (!rows.length) continue;
      const row = pick(rows);
      // Resolved often, so reopenings and several resolutions of one finding in a day happen.
      const to = rand() < 0.4 ? 'resolved' : pick(FINDING_STATUSES);
      await svc.findings.setStatus(w.tenantId, row.id, 'tester', to, rand() < 0.3 ? 'a note' : undefined);
    } else if (kind === 'delete-asset') {
      await svc.assets.delete(w.tenantId, asset);
      w.assets.splice(w.assets.indexOf(asset), 1);
      w.scans.delete(asset);
    }
  }
  t.true([...kinds.keys()].length >= 7, `every kind of change ran: ${JSON.stringify([...kinds])}`);

  const report = await recountFindings(t0.ctx.db);
  t.true(report.checked >= 3);
  t.deepEqual(report.tenants, [], 'no counter differs from the recount');
  t.not(report.search.consistent, false);
  for (const w of worlds) {
    const rows = await findingIds(w.tenantId);
    const stats = await findingStats(t0.ctx.db, w.tenantId);
    t.is(stats.total, rows.length);
    for (const s of FINDING_STATUSES) t.is(stats.by_status[s], rows.filter((r) => r.status === s).length, s);
    const list = await svc.findings.list(w.tenantId, {}, { sortBy: 'discovered_at', sortOrder: 'desc' }, { page: 1, perPage: 1 });
    t.is(list.total, rows.length);
  }

  // The check is not blind: a write that goes past the counters is reported, and repaired.
  const w = worlds.find((x) => x.assets.length)!;
  await svc.findings.create(w.tenantId, 'tester', [{ asset_id: w.assets[0]!, title: 'to be edited', cvss_vector: VECTORS[0]! }], false);
  await t0.ctx.db('findings').where({ tenant_id: w.tenantId, title: 'to be edited' }).update({ status: 'accepted_risk' });
  const drift = await recountFindings(t0.ctx.db, { tenantId: w.tenantId, repair: true });
  t.deepEqual(drift.tenants[0]!.differences, [
    { counter: 'grid severity_rank=4 status=accepted_risk', stored: drift.tenants[0]!.differences[0]!.stored, counted: drift.tenants[0]!.differences[0]!.stored + 1 },
    { counter: 'grid severity_rank=4 status=open', stored: drift.tenants[0]!.differences[1]!.counted + 1, counted: drift.tenants[0]!.differences[1]!.counted },
  ]);
  t.is((await recountFindings(t0.ctx.db, { tenantId: w.tenantId })).inconsistent, 0);
});

test('concurrent status changes and creates in one tenant lose no counts', async (t) => {
  const { tenantId } = await t0.tenant();
  const w: World = { tenantId, assets: [], scans: new Map() };
  for (let j = 0; j < 3; j++) await newAsset(w, j);
  const svc = t0.ctx.services;
  const made = await svc.findings.create(tenantId, 'tester', Array.from({ length: 12 }, (_, i) => ({ asset_id: w.assets[i % 3]!, title: `parallel ${i}`, cvss_vector: VECTORS[i % 5]! })), true);
  const statuses: FindingStatus[] = ['resolved', 'confirmed', 'accepted_risk', 'open'];
  const work = made.map((f, i) => svc.findings.setStatus(tenantId, f.id, 'tester', statuses[i % 4]!));
  for (let i = 0; i < 6; i++) work.push(svc.findings.create(tenantId, 'tester', [{ asset_id: w.assets[i % 3]!, title: `more ${i}`, cvss_vector: VECTORS[1]! }], false) as never);
  const outcomes = await Promise.allSettled(work);
  // A MariaDB deadlock victim rolls back whole (counters included); whatever committed must be counted exactly.
  for (const o of outcomes) if (o.status === 'rejected') t.regex(String((o.reason as Error).message), /deadlock/i);
  t.deepEqual((await recountFindings(t0.ctx.db, { tenantId })).tenants, []);
  t.is((await findingStats(t0.ctx.db, tenantId)).total, (await findingIds(tenantId)).length);
});
