import { readFileSync } from 'node:fs';
import test from 'ava';
import { defineForwarder, type PlatformEvent } from '../../../core/plugin-api/index.ts';
import { formatEvent } from '../../../core/author-kit/index.ts';
import { forwarderRenderer } from '../../../core/plugins/forwarder-renderer.ts';
import cef from '../../../forwarders/cef/index.ts';
import rfc5424 from '../../../forwarders/rfc5424/index.ts';
import { parse5424 } from '../../_helpers/parsers/syslog-parser.ts';

// Lines the built-in forwarders produced when each rendered its own envelope (before
// API 1.2): moving the envelope into core must not change a byte.
const golden = JSON.parse(readFileSync(new URL('../../fixtures/siem-forwarder-lines.json', import.meta.url), 'utf8')) as Array<{ event: PlatformEvent; cef: string; rfc5424: string }>;
const settings = { hostname: 'rampart.test', facility: 16, productVersion: '0.0.0-test', sourceIp: '192.0.2.10' };

test('cef and rfc5424 format only the message; core\'s envelope makes the same lines as before', (t) => {
  t.is(golden.length, 3);
  for (const { event, cef: cefLine, rfc5424: rfcLine } of golden) {
    t.is(formatEvent(cef, event, settings), cefLine, `cef ${event.kind}`);
    t.is(formatEvent(rfc5424, event, settings), rfcLine, `rfc5424 ${event.kind}`);
  }
});

test('the envelope carries the forwarder\'s MSGID, structured data and BOM choice, and the event\'s severity', (t) => {
  const plugin = defineForwarder({
    name: 'probe', version: '1.0.0', apiVersion: '^1.2.0', description: 'x', capabilities: [], format: 'probe',
    formatMessage: (event, ctx) => ({ msg: `${ctx.fields.summary} via ${String(ctx.options.via)}`, msgId: 'PROBE', structuredData: [{ id: 'probe@32473', params: [['k', 'v"]']] }], bom: true }),
  });
  const event = golden[1]!.event;
  const line = parse5424(formatEvent(plugin, event, { ...settings, facility: 4, options: { via: 'test' } }));
  t.like(line, { facility: 4, severity: 3, hostname: 'rampart.test', appName: 'rampart', procId: null, msgId: 'PROBE', bom: true });
  t.deepEqual(line.sd, [{ id: 'probe@32473', params: [['k', 'v"]']] }]);
  t.is(line.msg, 'Scan scn_1 failed: a"b]c\\d=e|f\nline via test');
  const plain = parse5424(formatEvent(defineForwarder({ ...plugin, formatMessage: () => ({ msg: 'm' }) }), event, settings));
  t.like(plain, { msgId: 'scan.failed', bom: false, msg: 'm' });
  t.deepEqual(plain.sd, []);
});

test('a forwarder written before API 1.2 still renders the whole line itself, with the envelope settings as options', (t) => {
  const seen: Array<Readonly<Record<string, unknown>>> = [];
  const legacy = defineForwarder({
    name: 'legacy', version: '1.0.0', apiVersion: '^1.0.0', description: 'x', capabilities: [], format: 'legacy',
    render: (event, options) => (seen.push(options), `<14>1 - - - - - - ${event.kind}`),
  });
  const render = forwarderRenderer(legacy, { colour: 'blue' }, { ...settings, appName: 'rampart' });
  t.is(render(golden[0]!.event), '<14>1 - - - - - - finding.new');
  t.deepEqual(seen[0], { colour: 'blue', ...settings, appName: 'rampart' });
  t.throws(() => forwarderRenderer(defineForwarder({ ...legacy, render: undefined }), {}, { ...settings, appName: 'rampart' }), { message: /neither formatMessage nor render/ });
});

test('formatEvent cuts at the message limit like the engine', (t) => {
  const big = { ...golden[0]!.event, data: { ...golden[0]!.event.data, title: 'x'.repeat(20_000) } };
  t.is(Buffer.byteLength(formatEvent(rfc5424, big, settings)), 8000);
  t.is(Buffer.byteLength(formatEvent(rfc5424, big, { ...settings, maxMessageBytes: 600 })), 600);
});
