import test from 'ava';
import { compareVersions, diffInventories, packageKey, type KeyedVersion } from '../../../core/inventory/inventory-diff.ts';

const c = (name: string, version: string | null, purlBase: string | null = `pkg:npm/${name}`): KeyedVersion => ({ key: packageKey({ purlBase, group: null, name }), name, purlBase, version });

test('versions are ordered by their parts, numbers as numbers; a release after its pre-releases; unknown shapes are null', (t) => {
  t.is(compareVersions('1.9.0', '1.10.0'), -1);
  t.is(compareVersions('2.0.0', '2.0.0-rc.1'), 1);
  t.is(compareVersions('2.0.0-rc.1', '2.0.0-rc.2'), -1);
  t.is(compareVersions('v1.2.3', '1.2.3'), 0);
  t.is(compareVersions('3.0.11-1~deb12u2', '3.0.11-1~deb12u3'), null);
  t.is(compareVersions('1.0', '1.0.0'), 0);
  t.is(compareVersions('1.0.a', '1.0.b'), null);
});

test('the diff per package: added, removed, one version for another as an upgrade, a downgrade or a change', (t) => {
  const before = [c('debug', '4.3.4'), c('ms', '2.1.3'), c('left-pad', '1.3.0'), c('glibc', 'a1', null), c('lodash', '3.10.1'), c('lodash', '4.17.20')];
  const after = [c('debug', '4.4.3'), c('ms', '2.1.2'), c('semver', '7.8.6'), c('glibc', 'b2', null), c('lodash', '4.17.21')];
  const said = diffInventories(before, after).map((x) => `${x.change} ${x.name} ${x.oldVersion ?? '-'} ${x.newVersion ?? '-'}`).sort();
  t.deepEqual(said, [
    'added lodash - 4.17.21',
    'added semver - 7.8.6',
    'changed glibc a1 b2',
    'downgraded ms 2.1.3 2.1.2',
    'removed left-pad 1.3.0 -',
    'removed lodash 3.10.1 -',
    'removed lodash 4.17.20 -',
    'upgraded debug 4.3.4 4.4.3',
  ]);
  t.deepEqual(diffInventories(after, after), []);
});

test('a component without a package URL is keyed by group and name, any case', (t) => {
  t.is(packageKey({ purlBase: null, group: 'Org', name: 'Lib' }), 'name:org/lib');
  t.is(packageKey({ purlBase: 'pkg:npm/x', group: 'g', name: 'X' }), 'pkg:npm/x');
});
