import test from 'ava';
import { HostTiming } from '../../../scanners/_lib/host-timing.mjs';
import { scanSharded } from '../../../scanners/_lib/connect-shards.ts';
import { scanPorts } from '../../../scanners/_lib/tcp-connect.ts';
import { createNetnsLab, type NetnsLab } from '../../_helpers/targets/netns-hosts.ts';
import { netnsGate } from '../../_helpers/harness/netns-gate.ts';

// Ava needs every test declared before the first await ends: ask first. A real network path: a host in a network namespace made here, with nftables dropping a block of ports.
const unavailable = await netnsGate('filtered-port tests');

test('timeouts follow RFC 6298 from the answers, between the floor and the ceiling', (t) => {
  const timing = new HostTiming({ minTimeoutMs: 100, maxTimeoutMs: 1500 });
  t.is(timing.timeout(), 1500, 'before any answer: the ceiling');
  timing.sample(200);
  t.is(timing.srtt, 200);
  t.is(timing.rttvar, 100);
  t.is(timing.timeout(), 600, 'srtt + 4 × rttvar');
  timing.sample(40);
  t.is(timing.srtt, 0.875 * 200 + 0.125 * 40);
  t.is(timing.rttvar, 0.75 * 100 + 0.25 * 160);
  for (let i = 0; i < 50; i++) timing.sample(1);
  t.is(timing.timeout(), 100, 'a fast host is held at the floor');
  for (let i = 0; i < 50; i++) timing.sample(5000);
  t.is(timing.timeout(), 1500, 'a slow host at the ceiling');
  const initial = new HostTiming({ minTimeoutMs: 100, maxTimeoutMs: 1500, initialTimeoutMs: 500 });
  t.is(initial.timeout(), 500);
});

test('fixed timeouts when adaptive is off: the RTT is still measured, the timeout stays', (t) => {
  const timing = new HostTiming({ adaptive: false, minTimeoutMs: 100, maxTimeoutMs: 800 });
  timing.sample(2);
  t.is(timing.srtt, 2);
  t.is(timing.timeout(), 800);
});

let lab: NetnsLab | null = null;
test.before(async () => {
  if (!unavailable) lab = await createNetnsLab([{ open: [22, 8080], drop: [[3000, 3039]] }, { open: [25], drop: [[21, 21]] }]);
});
test.after.always(() => lab?.close());

(unavailable ? test.skip : test)('dropped ports are filtered after the timeout learned from the host, open and closed are exact', async (t) => {
  const host = lab!.hosts[0]!;
  const ports = [...Array.from({ length: 4000 }, (_, i) => i + 1), 8080];
  const learned = await scanPorts(host.address, ports, { concurrency: 200, timeoutMs: 3000 });
  t.deepEqual(learned.open, [22, 8080]);
  t.deepEqual(learned.filteredPorts, Array.from({ length: 40 }, (_, i) => 3000 + i));
  t.is(learned.closed, 4001 - 42);
  t.not(learned.srttMs, null);
  t.true(learned.timeoutMs < 3000, `timeout learned from the answers (${learned.timeoutMs} ms), not the 3 s ceiling`);
  t.true(learned.timeoutMs >= 100, 'never under the floor');
  const fixed = await scanPorts(host.address, [22, 3000, 3001, 4001], { concurrency: 10, timeoutMs: 400, adaptive: false, retries: 0 });
  t.deepEqual(fixed.open, [22]);
  t.deepEqual(fixed.filteredPorts, [3000, 3001]);
  t.is(fixed.timeoutMs, 400, 'adaptive off: the fixed timeout');
});

(unavailable ? test.skip : test)('several hosts in one scan, each with its own verdicts; progress reaches every port', async (t) => {
  const [a, b] = lab!.hosts;
  let done = 0;
  const ports = [21, 22, 25, 2999, 3000, 3039, 3040, 8080];
  const results = await scanSharded([{ host: a!.address, ports }, { host: b!.address, ports }], { concurrency: 4, maxTimeoutMs: 3000, onProgress: (d) => (done = d) });
  t.deepEqual(results.map((r) => [r.open, r.filtered, r.closed]), [
    [[22, 8080], [3000, 3039], 4],
    [[25], [21], 6],
  ]);
  t.is(done, 16);
});
