import { readFileSync } from 'node:fs';
import test from 'ava';
import { formatCef } from '../../../forwarders/cef/cef-format.ts';
import { parseCef } from '../../_helpers/parsers/cef-parser.ts';

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/syslog-vectors.json', import.meta.url), 'utf8')) as {
  cef_escaping_example: { line: string };
};

test('the reference CEF line is produced by the formatter and read back by the strict parser', (t) => {
  const line = formatCef({
    vendor: 'Acme|Corp',
    product: 'SOAR',
    version: '2.1',
    classId: 'playbook.failed',
    name: 'Playbook C:\\run failed',
    severity: 7,
    extensions: [
      ['rt', 1714564800000], ['src', '10.0.0.5'], ['suser', 'alice'], ['act', 'blocked'], ['msg', 'line1\nline2 a=b'],
      ['cs1Label', 'playbookId'], ['cs1', 'playbook--e20963b7-a870-48d5-8015-e5da558f14db'], ['request', 'https://x.example/api?q=1&r=2'],
    ],
  });
  t.is(line, vectors.cef_escaping_example.line);
  const parsed = parseCef(line);
  t.is(parsed.vendor, 'Acme|Corp');
  t.is(parsed.name, 'Playbook C:\\run failed');
  t.is(parsed.extensions.msg, 'line1\nline2 a=b');
  t.is(parsed.extensions.request, 'https://x.example/api?q=1&r=2');
});

test('CEF header pipes/backslashes and extension =, \\ and line breaks are escaped; empty values are left out', (t) => {
  const line = formatCef({
    vendor: 'V', product: 'P', version: '1', classId: 'finding.new', name: 'a|b\\c\nd', severity: 12,
    extensions: [['msg', 'x=y\\z\r\nw|v'], ['cs1', ''], ['cs2', null], ['bad key', 'dropped'], ['cs3', 'fnd_1']],
  });
  const p = parseCef(line);
  t.is(p.name, 'a|b\\c d');
  t.is(p.severity, 10);
  t.deepEqual(p.keys, ['msg', 'cs3']);
  t.is(p.extensions.msg, 'x=y\\z\nw|v');
});
