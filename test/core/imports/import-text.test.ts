import test from 'ava';
import { cweIds, evidenceText, hostOf, htmlToText, maskSecrets, urlsIn } from '../../../core/imports/import-text.ts';

test('session secrets in evidence text are masked, names kept', (t) => {
  t.is(maskSecrets('security=low; path=/ PHPSESSID=90af3b3f; Max-Age=86400'), 'security=low; path=/ PHPSESSID=<redacted>; Max-Age=86400');
  t.is(maskSecrets('username=admin&password=password&user_token=0ad6e1'), 'username=admin&password=<redacted>&user_token=<redacted>');
  t.is(maskSecrets('GET / HTTP/1.1\r\nAuthorization: Bearer abc.def\r\nHost: x'), 'GET / HTTP/1.1\r\nAuthorization: <redacted>\r\nHost: x');
  t.is(evidenceText('JSESSIONID=ABC123'), 'JSESSIONID=<redacted>');
  t.is(evidenceText(''), null);
});

test('HTML fragments as text, URLs, CWE ids and hosts', (t) => {
  t.is(htmlToText('<p>One &amp; two</p><p>&#8212; three&nbsp;<b>four</b></p>'), 'One & two\n— three four');
  t.deepEqual(urlsIn('<p>https://a.example/x.</p><p>http://b.example/gg6(v=vs.85)</p> (see https://a.example/x) https://c.example/y).'), ['https://a.example/x', 'http://b.example/gg6(v=vs.85)', 'https://c.example/y']);
  t.deepEqual(cweIds(['external/cwe/cwe-079', 'CWE-89: SQL Injection', 'cwe-200', 200, 'owasp-a1']), ['CWE-79', 'CWE-89', 'CWE-200']);
  t.deepEqual(['https://Example.com:8443/x', 'example.com:22', '10.0.0.1', '[::1]:443', 'not a host', ''].map(hostOf), ['example.com', 'example.com', '10.0.0.1', '::1', null, null]);
});
