import test from 'ava';
import { normaliseAssetName } from '../../../core/assets/asset-names.ts';
import type { AssetType } from '../../../core/domain/asset-type.ts';

const limits = { minPrefixV4: 20, minPrefixV6: 56 };
const ok = (type: AssetType, raw: string) => normaliseAssetName(type, raw, limits);

test('domains: IDNA, case, trailing dot', (t) => {
  t.is(ok('domain', 'MÜNCHEN.example'), 'xn--mnchen-3ya.example');
  t.is(ok('domain', 'xn--mnchen-3ya.example'), 'xn--mnchen-3ya.example');
  t.is(ok('domain', ' a-b.c.example. '), 'a-b.c.example');
  for (const bad of ['a..example', 'a_b.example', 'example.com/path', 'example.com:443', `${'a'.repeat(64)}.example`, 'example.123', 'user@example.com']) {
    t.throws(() => ok('domain', bad), { message: /./ }, bad);
  }
});

test('IP addresses: canonical text', (t) => {
  t.is(ok('ip', '2001:0db8:0000:0000:0000:ff00:0042:8329'), '2001:db8::ff00:42:8329');
  t.is(ok('ip', '::1'), '::1');
  t.is(ok('ip', '0.0.0.0'), '0.0.0.0');
  for (const bad of ['1.2.3', '1.2.3.4.5', '0x7f.0.0.1', '1.2.3.04', '::g', 'example.com']) t.throws(() => ok('ip', bad), undefined, bad);
});

test('URLs: http(s) only, normalised', (t) => {
  t.is(ok('url', 'http://EXAMPLE.com:80'), 'http://example.com/');
  t.is(ok('url', 'https://[2001:DB8::1]:8443/x'), 'https://[2001:db8::1]:8443/x');
  for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'http://', 'https://bad_host.example/', 'mailto:a@b.example']) t.throws(() => ok('url', bad), undefined, bad);
});

test('networks: canonical CIDR within the configured size', (t) => {
  t.is(ok('network', '192.0.2.77/28'), '192.0.2.64/28');
  t.is(ok('network', '10.0.0.0/20'), '10.0.0.0/20');
  t.is(ok('network', '2001:db8:0:ff::1/56'), '2001:db8::/56');
  t.is(ok('network', '192.0.2.1/32'), '192.0.2.1/32');
  const big = t.throws(() => ok('network', '10.0.0.0/19'));
  t.is((big as { code?: string }).code, 'network_too_large');
  for (const bad of ['10.0.0.0/', '10.0.0.0/abc', '10.0.0/24', '10.0.0.0/24/1', '2001:db8::/129']) t.throws(() => ok('network', bad), undefined, bad);
});
