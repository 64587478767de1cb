import test from 'ava';
import type { AssetCreatedData, EventPayloads, FindingNewData, FindingStatusChangedData, ScanCreatedData } from '../../../core/domain/event-payloads.ts';
import type { UnitOfWork } from '../../../core/events/outbox.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, eventsOf } from '../../_helpers/harness/scan-helpers.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp(engineOnly());
});
test.after.always(async () => t0?.close());

/**
 * Type checks, enforced by `tsc --noEmit` (never called): a unit of work typed with
 * EventPayloads takes a kind's payload and refuses anything else.
 */
export function typedEmitsOnly(uow: UnitOfWork<EventPayloads>): void {
  void uow.emit({ tenantId: 't', kind: 'asset.created', data: { asset_id: 'a', name: 'n', type: 'domain', tags: [] } });
  // @ts-expect-error a payload without its kind's fields
  void uow.emit({ tenantId: 't', kind: 'asset.created', data: { name: 'n' } });
  // @ts-expect-error a field the kind does not carry
  void uow.emit({ tenantId: 't', kind: 'scan.failed', data: { scan_id: 's', asset_id: 'a', error: null, seq: 1 } });
  // @ts-expect-error a severity that is not one
  void uow.emit({ tenantId: 't', kind: 'finding.new', data: { finding_id: 'f', title: 't', severity: 'urgent', cvss: 1, asset: { id: 'a', name: 'n', type: 'ip' }, scan_id: null } });
  // @ts-expect-error no emitter defines an action payload yet
  void uow.emit({ tenantId: 't', kind: 'action.triggered', data: {} });
}

/** The keys of a payload type, from a value that must hold exactly them (excess property checks). */
const keysOf = (sample: object) => Object.keys(sample).sort();

test('what the emitters store has exactly the keys of the kind\'s payload type', async (t) => {
  const { token } = await t0.tenant();
  const assetId = await createAsset(t0, '192.0.2.70', 'ip', token);
  const asset: Required<AssetCreatedData> = { asset_id: '', name: '', type: 'ip', tags: [] };
  const [created] = await eventsOf(t0, 'asset.created', (d) => d.asset_id === assetId);
  t.deepEqual(keysOf(created), keysOf(asset));

  const f = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title: 'Open port', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' } });
  t.is(f.statusCode, 201, f.raw);
  const finding: Required<FindingNewData> = { finding_id: '', title: '', severity: 'info', cvss: 0, asset: { id: '', name: '', type: 'ip' }, scan_id: null };
  const [fresh] = await eventsOf(t0, 'finding.new', (d) => d.finding_id === f.body.data.id);
  t.deepEqual(keysOf(fresh), keysOf(finding));
  t.deepEqual(keysOf(fresh.asset), keysOf(finding.asset));

  await t0.request('PUT', `/api/findings/${f.body.data.id}/status`, { token, payload: { status: 'resolved' } });
  // Triage leaves out the optional scan_id and reason (a scan that finds it again adds them).
  const triage: Omit<Required<FindingStatusChangedData>, 'scan_id' | 'reason'> = { finding_id: '', old_status: 'open', new_status: 'open', asset_id: '', updated_by: '' };
  const [changed] = await eventsOf(t0, 'finding.status_changed', (d) => d.finding_id === f.body.data.id);
  t.deepEqual(keysOf(changed), keysOf(triage));

  const s = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'web_app' } });
  t.is(s.statusCode, 201, s.raw);
  const scan: Required<ScanCreatedData> = { scan_id: '', asset_id: '', scan_type: '', priority: '' };
  const [queued] = await eventsOf(t0, 'scan.created', (d) => d.scan_id === s.body.data.scan_id);
  t.deepEqual(keysOf(queued), keysOf(scan));
  await t0.request('POST', `/api/scan/${s.body.data.scan_id}/cancel`, { token });
});
