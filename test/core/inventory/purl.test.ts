import test from 'ava';
import { parsePurl, tryParsePurl } from '../../../core/inventory/purl.ts';

test('a package URL taken apart: type, namespace, name, version; the package without version, qualifiers or subpath', (t) => {
  t.deepEqual(parsePurl('pkg:npm/%40hapi/boom@10.0.1'), { type: 'npm', namespace: '@hapi', name: 'boom', version: '10.0.1', base: 'pkg:npm/%40hapi/boom' });
  t.like(parsePurl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar#sub/path'), { type: 'maven', namespace: 'org.apache.logging.log4j', name: 'log4j-core', version: '2.14.1', base: 'pkg:maven/org.apache.logging.log4j/log4j-core' });
  t.like(parsePurl('pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12'), { namespace: 'debian', name: 'openssl', version: '3.0.11-1~deb12u2' });
  t.like(parsePurl('pkg:golang/github.com/Sirupsen/logrus@v1.9.3'), { namespace: 'github.com/Sirupsen', name: 'logrus', base: 'pkg:golang/github.com/Sirupsen/logrus' });
});

test('the same package however it is written: case and PyPI separators as the spec says, an unencoded npm scope', (t) => {
  t.is(parsePurl('pkg:npm/@hapi/boom@10.0.1').base, parsePurl('pkg:npm/%40hapi/boom').base);
  t.is(parsePurl('PKG:NPM/Lodash').base, 'pkg:npm/lodash');
  t.is(parsePurl('pkg:pypi/Django_REST.framework@3.15').base, 'pkg:pypi/django-rest-framework');
  t.is(parsePurl('pkg://npm/debug').base, 'pkg:npm/debug');
  t.is(parsePurl('pkg:npm/debug').version, null);
});

test('what is not a package URL is said plainly', (t) => {
  t.throws(() => parsePurl('npm/debug@4'), { message: /starts with "pkg:"/ });
  t.throws(() => parsePurl('pkg:npm'), { message: /type and a package/ });
  t.throws(() => parsePurl('pkg:n$m/x'), { message: /not a package URL type/ });
  t.throws(() => parsePurl('pkg:npm/%E0%A4%A'), { message: /percent-encoding/ });
  t.is(tryParsePurl(42), null);
  t.is(tryParsePurl('nope'), null);
});
