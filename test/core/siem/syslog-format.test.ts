import { readFileSync } from 'node:fs';
import test from 'ava';
import { formatSyslog, truncateUtf8 } from '../../../core/plugins/syslog-message.ts';
import { octetFrame } from '../../../core/siem/syslog-transport.ts';
import { parseCef } from '../../_helpers/parsers/cef-parser.ts';
import { parse5424 } from '../../_helpers/parsers/syslog-parser.ts';

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/syslog-vectors.json', import.meta.url), 'utf8')) as {
  syslog_rfc5425_frame: { message: string; msg_len_octets: number; frame: string };
};

test('RFC 5424 §6.5 example: rebuilt byte for byte and framed with its octet count', (t) => {
  const v = vectors.syslog_rfc5425_frame;
  const built = formatSyslog({
    facility: 20,
    severity: 5,
    timestamp: '2003-10-11T22:14:15.003Z',
    hostname: 'mymachine.example.com',
    appName: 'evntslog',
    procId: null,
    msgId: 'ID47',
    sd: [{ id: 'exampleSDID@32473', params: [['iut', '3'], ['eventSource', 'Application'], ['eventID', '1011']] }],
    msg: 'An application event log entry...',
    bom: true,
  });
  t.is(built, v.message);
  t.is(octetFrame(built).toString('utf8'), v.frame);
  t.is(Buffer.byteLength(built), v.msg_len_octets);
});

test('SD values escape " \\ and ]; header fields are sanitised to PRINTUSASCII', (t) => {
  const nasty = 'a"b\\c]d [x="y"] \\n é';
  const text = formatSyslog({
    facility: 16,
    severity: 3,
    timestamp: '2024-05-01T12:00:00.000Z',
    hostname: 'host with spaces',
    appName: 'rampart',
    procId: null,
    msgId: 'finding.new',
    sd: [{ id: 'rampart@32473', params: [['title', nasty], ['bad name=x', 'v']] }],
    msg: 'ünïcode ]"',
    bom: true,
  });
  const p = parse5424(text);
  t.is(p.pri, 16 * 8 + 3);
  t.is(p.hostname, 'hostwithspaces');
  t.deepEqual(p.sd[0]!.params, [['title', nasty], ['bad_name_x', 'v']]);
  t.is(p.msg, 'ünïcode ]"');
  t.true(p.bom);
});

test('truncation keeps whole characters and never leaves a dangling escape', (t) => {
  t.is(truncateUtf8('abc', 10), 'abc');
  t.is(truncateUtf8('aéé', 4), 'aé');
  t.is(truncateUtf8('ab\\\\\\=', 5), 'ab\\\\');
  t.is(truncateUtf8('ab\\\\\\=', 4), 'ab\\\\');
});

test('the strict parsers reject what a sloppy formatter would produce', (t) => {
  t.throws(() => parse5424('<13>1 - - - - - [id a="x]y"]'));
  t.throws(() => parse5424('<13>1 - - - - - [id a="x"y"]'));
  t.throws(() => parse5424('<192>1 - - - - - -'));
  t.throws(() => parse5424('<13> 2024 - - - - -'));
  t.throws(() => parseCef('CEF:0|a|b|c|d|e|5|msg=a=b'));
  t.throws(() => parseCef('CEF:0|a|b\\x|c|d|e|5|'));
  t.throws(() => parseCef('CEF:0|a|b|c|d|e|11|'));
  t.notThrows(() => parseCef('CEF:0|a|b|c|d|e|5|'));
});
