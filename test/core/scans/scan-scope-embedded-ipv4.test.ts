import test from 'ava';
import { isDenied, scopeFunction, staticDenial, targetOf } from '../../../core/scans/scan-scope.ts';
import { targetScope } from '../../../core/plugins/target-scope.ts';

// The scan deny list must catch an IPv4 address written in any IPv6 form that carries it.
const LOOPBACK_FORMS = ['::7f00:1', '::127.0.0.1', '::ffff:127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:80ff:fffe'];
const METADATA_FORMS = ['::a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::', '2001:0:4136:e378:8000:63bf:5601:5601'];
const DENY = ['127.0.0.0/8', '169.254.0.0/16'];

test('isDenied judges embedded IPv4 forms as the address they carry', (t) => {
  for (const ip of [...LOOPBACK_FORMS, ...METADATA_FORMS]) t.true(isDenied(ip, DENY), ip);
  for (const ip of ['2002:808:808::1', '64:ff9b::808:808', '::ffff:8.8.8.8', '2606:4700:4700::1111']) t.false(isDenied(ip, DENY), ip);
  // A deny entry written as IPv6 still matches the address as written.
  t.true(isDenied('2002:808:808::1', ['2002::/16']));
});

test('an IP asset written in an embedded form is refused when the scan is created, and out of scope for checks', (t) => {
  for (const ip of LOOPBACK_FORMS) {
    t.truthy(staticDenial(targetOf({ id: 'a', type: 'ip', name: ip }), DENY), ip);
  }
  const inScope = scopeFunction({ assetType: 'ip', host: '203.0.113.5', cidr: null, addresses: ['203.0.113.5'], deny: DENY });
  for (const ip of [...LOOPBACK_FORMS, ...METADATA_FORMS]) t.false(inScope(ip), ip);
  const kitScope = targetScope({ assetId: 'a', assetType: 'network', name: '::/0' }, DENY);
  for (const ip of LOOPBACK_FORMS) t.false(kitScope(ip), ip);
});

test('a network asset inside an embedded /96 form of a denied range is refused as a whole', (t) => {
  for (const cidr of ['64:ff9b::7f00:0/120', '::ffff:127.0.0.0/104', '::ffff:169.254.169.0/120']) {
    t.truthy(staticDenial(targetOf({ id: 'a', type: 'network', name: cidr }), DENY), cidr);
  }
  t.is(staticDenial(targetOf({ id: 'a', type: 'network', name: '64:ff9b::808:800/120' }), DENY), null);
});
