import test from 'ava';
import { AddressPolicy, ipLiteral } from '../../../core/outbound/address-policy.ts';
import { guardedLookup, type LookupFn } from '../../../core/outbound/guarded-lookup.ts';

const strict = new AddressPolicy();

// Every IPv6 form that carries an IPv4 address, for loopback, link-local (cloud metadata)
// and a private address. Teredo stores the client address inverted (XOR 0xffffffff).
const EMBEDDED_INTERNAL: Array<[string, string]> = [
  ['::7f00:1', 'loopback'], // IPv4-compatible ::127.0.0.1, as the URL parser writes it
  ['::127.0.0.1', 'loopback'],
  ['::a9fe:a9fe', 'linkLocal'], // ::169.254.169.254
  ['::a00:5', 'private'],
  ['::ffff:7f00:1', 'loopback'], // IPv4-mapped
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (RFC 6145)
  ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known prefix
  ['64:ff9b::a9fe:a9fe', 'linkLocal'],
  ['64:ff9b::c0a8:101', 'private'],
  ['2002:7f00:1::', 'loopback'], // 6to4: bits 16-47
  ['2002:a9fe:a9fe:1::5', 'linkLocal'],
  ['2002:a00:1::1', 'private'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo client 127.0.0.1
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'linkLocal'], // Teredo client 169.254.169.254
  ['2001::f5ff:fffe', 'private'], // Teredo client 10.0.0.1
];

// The same forms around a public IPv4 address (8.8.8.8) reach a public host: allowed.
const EMBEDDED_PUBLIC = ['::808:808', '::ffff:8.8.8.8', '::ffff:0:808:808', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'];

test('every IPv6 form embedding an internal IPv4 address is judged as that address', (t) => {
  for (const [ip, range] of EMBEDDED_INTERNAL) {
    t.is(strict.refusal(ip), range, ip);
    t.is(AddressPolicy.rangeOf(ip), range, ip);
  }
});

test('the same forms around a public IPv4 address stay allowed', (t) => {
  for (const ip of EMBEDDED_PUBLIC) {
    t.is(strict.refusal(ip), null, ip);
    t.is(AddressPolicy.rangeOf(ip), 'unicast', ip);
  }
  for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '93.184.216.34']) t.is(strict.refusal(ip), null, ip);
});

test(':: and ::1 keep their IPv6 meaning; NAT64 local-use and other special IPv6 ranges stay refused', (t) => {
  t.is(strict.refusal('::'), 'unspecified');
  t.is(strict.refusal('::1'), 'loopback');
  t.is(strict.refusal('64:ff9b:1::a00:1'), 'rfc6052');
  for (const ip of ['fe80::1', 'fc00::1', 'ff02::1', '2001:db8::1']) t.truthy(strict.refusal(ip), ip);
  t.is(strict.refusal('not-an-ip'), 'invalid address');
});

test('the rest of ::/8 is reserved (RFC 4291): only ::1 and the IPv4 forms inside it have a meaning', (t) => {
  for (const ip of ['::1:0:0:1', '0:0:0:0:1:0:0:1', '::1:0:0:0', '0:ff::1', '00ff:ffff::1']) t.is(strict.refusal(ip), 'reserved', ip);
  t.truthy(strict.refusal('::1:1'), 'IPv4-compatible 0.1.0.1: refused as that address');
  t.is(strict.refusal('::ffff:8.8.8.8'), null, 'an IPv4-mapped public address is the public address');
  t.is(strict.refusal('::1'), 'loopback');
  t.is(strict.refusal('100::1'), 'discard', 'just past ::/8');
  t.is(new AddressPolicy(['::1:0:0:0/96']).refusal('::1:0:0:1'), null, 'an admin may still allow-list it');
});

test('an IPv4 allow-list entry admits that address in every embedded form, and nothing else', (t) => {
  const allowing = new AddressPolicy(['127.0.0.0/8', '::1/128']);
  for (const ip of ['127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::', '2001:0:4136:e378:8000:63bf:80ff:fffe', '::1']) {
    t.is(allowing.refusal(ip), null, ip);
  }
  for (const ip of ['::a9fe:a9fe', '2002:a9fe:a9fe::', '::a00:5']) t.truthy(allowing.refusal(ip), ip);
  // An allow-list entry written in the IPv4-mapped form means the IPv4 network.
  const mapped = new AddressPolicy(['::ffff:10.20.0.0/112']);
  t.is(mapped.refusal('10.20.3.4'), null);
  t.is(mapped.refusal('::a14:304'), null);
  t.is(mapped.refusal('10.21.0.1'), 'private');
});

test('a URL host written in any embedded form is an IP literal the policy judges', (t) => {
  for (const raw of ['https://[::127.0.0.1]:8443/', 'https://[::a9fe:a9fe]/', 'https://[64:ff9b::127.0.0.1]/', 'https://[2002:7f00:1::1]/']) {
    const literal = ipLiteral(new URL(raw).hostname);
    t.truthy(literal, raw);
    t.truthy(strict.refusal(literal!), raw);
  }
});

test('at connect time, a name resolving to an embedded loopback or metadata address is refused', async (t) => {
  const answers: Record<string, string> = { 'compat.test': '::7f00:1', 'nat64.test': '64:ff9b::a9fe:a9fe', 'teredo.test': '2001:0:4136:e378:8000:63bf:80ff:fffe', 'public.test': '2002:808:808::1' };
  const resolve = ((host: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) => cb(null, [{ address: answers[host]!, family: 6 }])) as unknown as LookupFn;
  const lookup = guardedLookup(strict, resolve);
  const run = (host: string) => new Promise<{ code?: string } | null>((ok) => lookup(host, { all: true }, (err) => ok(err as { code?: string } | null)));
  for (const host of ['compat.test', 'nat64.test', 'teredo.test']) t.is((await run(host))?.code, 'destination_refused', host);
  t.is(await run('public.test'), null);
});
