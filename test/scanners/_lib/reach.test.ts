import test from 'ava';
import { reachOf, withReach, type Reach } from '../../../scanners/_lib/reach.ts';

test('where an address is reached from: this host, the internal network, the internet', (t) => {
  const cases: Array<[string, Reach]> = [
    ['127.0.0.1', 'local'], ['127.3.4.5', 'local'], ['::1', 'local'], ['0.0.0.0', 'local'], ['::ffff:127.0.0.1', 'local'],
    ['10.1.2.3', 'internal'], ['172.16.5.4', 'internal'], ['192.168.1.10', 'internal'], ['100.64.0.9', 'internal'],
    ['169.254.169.254', 'internal'], ['fe80::1', 'internal'], ['fd12:3456::1', 'internal'], ['::ffff:10.0.0.1', 'internal'], ['192.0.2.10', 'internal'],
    ['8.8.8.8', 'internet'], ['2a00:1450:4001::1', 'internet'], ['2002:0808:0808::1', 'internet'], ['db.example.com', 'internet'],
  ];
  for (const [address, reach] of cases) t.is(reachOf(address), reach, address);
});

test('the attack vector follows the reach, nothing else in the vector changes', (t) => {
  const v = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
  t.is(withReach(v, 'internet'), v);
  t.is(withReach(v, 'internal'), 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  t.is(withReach(v, 'local'), 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
});
