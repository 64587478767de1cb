import test from 'ava';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { CheckOrder } from '../../../core/scans/check-order.ts';
import type { ScanCheckRow } from '../../../core/scans/scan-check-repository.ts';

function row(check_id: string, status: ScanCheckRow['status'] = 'pending', services: unknown[] | null = null): ScanCheckRow {
  return { scan_id: 'scn_x', check_id, seq: 0, plugin: check_id.split(':')[0]!, category: 'c', status, error: null, duration_ms: null, finding_count: 0, completed_at: null, services: services ? JSON.stringify(services) : null };
}

const defs: Record<string, Partial<ScannerCheck>> = {
  'port:scan': { produces: ['services'] },
  'ssl:a': { consumes: ['services'] },
  'ssl:b': { consumes: ['services'] },
  'web:x': {},
  'both:y': { produces: ['services'], consumes: ['services'] },
};
const defOf = (r: ScanCheckRow) => defs[r.check_id] as ScannerCheck | undefined;
const svc = { host: '127.0.0.1', port: 8443, service: 'tls', tls: true };

test('consumers wait until every producer has finished, then receive what it found', async (t) => {
  const order = new CheckOrder([row('ssl:a'), row('port:scan'), row('web:x'), row('ssl:b')], defOf);
  const signal = new AbortController().signal;
  const first = await order.next(signal);
  const second = await order.next(signal);
  t.deepEqual([first?.check_id, second?.check_id], ['port:scan', 'web:x']);
  let third: string | undefined;
  const waiting = order.next(signal).then((r) => (third = r?.check_id));
  await new Promise((r) => setTimeout(r, 20));
  t.is(third, undefined, 'ssl waits while the port scan runs');
  order.finished(second!, []);
  await new Promise((r) => setTimeout(r, 20));
  t.is(third, undefined, 'a non-producer finishing does not release consumers');
  order.finished(first!, [svc]);
  await waiting;
  t.is(third, 'ssl:a');
  t.deepEqual(order.servicesFor({ check_id: 'ssl:a' }), [svc]);
  t.is(order.servicesFor({ check_id: 'web:x' }), undefined);
  t.is((await order.next(signal))?.check_id, 'ssl:b');
  t.is(await order.next(signal), null);
});

test('a resumed scan hands consumers the services recorded by producers that finished before', async (t) => {
  const order = new CheckOrder([row('port:scan', 'error', [svc, { host: 'x y', port: 1 }]), row('ssl:a')], defOf);
  t.is(order.pendingCount, 1);
  const next = await order.next(new AbortController().signal);
  t.is(next?.check_id, 'ssl:a');
  t.deepEqual(order.servicesFor(next!), [svc], 'the malformed stored entry is dropped');
});

test('without a producer in the scan consumers start at once and get no service list', async (t) => {
  const order = new CheckOrder([row('ssl:a'), row('both:y')], defOf);
  const signal = new AbortController().signal;
  t.is((await order.next(signal))?.check_id, 'ssl:a');
  t.is(order.servicesFor({ check_id: 'ssl:a' }), undefined);
  t.is((await order.next(signal))?.check_id, 'both:y', 'a check that also consumes never blocks others (no cycles)');
});

test('an abort releases workers waiting for producers', async (t) => {
  const order = new CheckOrder([row('port:scan'), row('ssl:a')], defOf);
  const controller = new AbortController();
  await order.next(controller.signal);
  const waiting = order.next(controller.signal);
  controller.abort();
  t.is(await waiting, null);
});
