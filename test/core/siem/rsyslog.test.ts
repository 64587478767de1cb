import test from 'ava';
import type { StoredEventKind } from '../../../core/domain/event-kinds.ts';
import { parseCef } from '../../_helpers/parsers/cef-parser.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { findRsyslogd, startRsyslog, type RsyslogMessage } from '../../_helpers/receivers/rsyslog.ts';
import { createTestApp } from '../../_helpers/harness/test-app.ts';

const bin = findRsyslogd();
// CI installs rsyslog (.ci/run); there a missing binary must fail, not pass silently.
const run = bin || process.env.CI || process.env.RAMPART_REQUIRE_RSYSLOG ? test : test.skip;
if (run === test.skip) console.warn('rsyslog test skipped: rsyslogd is not installed (Debian packages rsyslog and rsyslog-openssl)');

run('the real rsyslog (TLS, octet counting) parses our RFC 5424 structured data and CEF lines', async (t) => {
  if (!bin) return t.fail('rsyslogd is not installed (Debian packages rsyslog and rsyslog-openssl; .ci/run installs them)');
  const { ca, server } = await sharedTestCertificates();
  const rsyslog = await startRsyslog(bin, { certPem: server.chainPem, keyPem: server.keyPem, caPem: ca.certPem });
  const t0 = await createTestApp();
  try {
    await t0.app.start();
    const a = await t0.tenant();
    for (const format of ['rfc5424', 'cef']) {
      const res = await t0.request('POST', '/api/integrations/siem', {
        token: a.token,
        payload: { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: rsyslog.port, format, events: ['finding.new', 'system.alert'], tls: { ca: ca.certPem, server_name: 'localhost' } },
      });
      t.is(res.statusCode, 201, res.raw);
    }
    const publish = (kind: StoredEventKind, data: Record<string, unknown>) => t0.ctx.outbox.transaction(({ emit }) => emit({ tenantId: a.tenantId, kind, data }));
    const title = 'SQL "injection" in ] param \\ a=b | c\nnext line ü';
    const findingId = String(await publish('finding.new', { finding_id: 'fnd_rs', title, severity: 'critical', cvss: 9.8, asset: { id: 'ast_rs', name: '192.0.2.7', type: 'ip' } }));
    const alertId = String(await publish('system.alert', { alert_type: 'disk', message: 'Über 90 %' }));
    let messages: RsyslogMessage[] = [];
    for (let i = 0; i < 300 && messages.length < 4; i++) {
      await new Promise((r) => setTimeout(r, 50));
      messages = rsyslog.messages();
    }
    t.is(messages.length, 4, JSON.stringify(messages));
    const structured = messages.filter((m) => m.sd !== '-');
    const cef = messages.filter((m) => m.msg.startsWith('CEF:'));
    t.is(structured.length, 2);
    t.is(cef.length, 2);

    const s1 = structured.find((m) => m.msgid === 'finding.new')!;
    t.like(s1, { facility: '16', severity: '2', app: 'rampart' });
    const sd = (s1.parsed as Record<string, Record<string, string>>)['rampart@32473']!;
    t.like(sd, { event_id: findingId, kind: 'finding.new', finding_id: 'fnd_rs', title, severity: 'critical', cvss: '9.8', asset_name: '192.0.2.7' });
    t.is(s1.msg.replace(/^\uFEFF/, ''), `New critical finding: ${title}`.replace(/\s+/g, ' '));
    const s2 = structured.find((m) => m.msgid === 'system.alert')!;
    t.like((s2.parsed as Record<string, Record<string, string>>)['rampart@32473'], { event_id: alertId, alert_type: 'disk', message: 'Über 90 %' });

    const c1 = parseCef(cef.find((m) => m.msgid === 'finding.new')!.msg);
    t.like(c1, { classId: 'finding.new', severity: 10 });
    t.like(c1.extensions, { dst: '192.0.2.7', cs1Label: 'severity', cs1: 'critical', cs2Label: 'cvss', cs2: '9.8', cs3Label: 'finding_id', cs3: 'fnd_rs', externalId: findingId });
    t.is(c1.extensions.msg, `New critical finding: ${title}`.replace(/\s+/g, ' '));
    const c2 = parseCef(cef.find((m) => m.msgid === 'system.alert')!.msg);
    t.like(c2, { classId: 'system.alert', severity: 7 });
    t.is(c2.extensions.msg, 'System alert disk: Über 90 %');
  } finally {
    await t0.close();
    await rsyslog.stop();
  }
});
