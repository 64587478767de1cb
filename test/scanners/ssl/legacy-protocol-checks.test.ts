import test from 'ava';
import { runCheck } from '../../../core/author-kit/index.ts';
import { protocolVersions } from '../../../scanners/ssl/checks/protocol-versions.ts';
import { SSL2_CIPHER_KINDS } from '../../../scanners/ssl/raw/client-hello.ts';
import { startGnutlsTarget, withGnutls } from '../../_helpers/targets/gnutls-target.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { startScriptedServerHello } from '../../_helpers/targets/scripted-server-hello.ts';
import { startTlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa, type IssuedPem } from '../../_helpers/certificates/weak-certs.ts';

let leaf: IssuedPem;
const closers: Array<{ close(): Promise<void> }> = [];
const opts = { timeoutMs: 60_000, options: { handshake_timeout_ms: 8000 } };

test.before(async () => {
  leaf = await (await createRsaTestCa()).issue();
});
test.after.always(() => Promise.all(closers.map((c) => c.close())));

test('scripted ServerHello (SSLv3-only responder; no real SSLv3 server on Debian 12): SSLv3 reported as POODLE-class, medium', async (t) => {
  const s = await startScriptedServerHello({ versions: [0x0300], suites: [0x002f, 0x000a] });
  closers.push(s);
  const a = await runCheck(protocolVersions, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  const f = a.findings[0]!;
  t.is(f.title, 'Deprecated TLS versions offered: SSLv3');
  t.is(f.cvss_vector, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N');
  t.deepEqual(f.evidence!.protocols_offered, ['SSLv3']);
  t.is(f.evidence!.response_indicator, 'SSLv3 ServerHello to a raw SSLv3 hello');
  t.true(s.hellos.some((h) => h.kind === 'tls' && h.clientVersion === 0x0300), 'the probe sent an SSLv3 ClientHello');
});

test('scripted SSLv2 SERVER-HELLO responder: SSLv2 reported (DROWN vector), SSLv2 first', async (t) => {
  const s = await startScriptedServerHello({ versions: [0x0300, 0x0301], suites: [0x002f], sslv2CipherKinds: [0x0700c0, 0x010080], certPem: leaf.certPem });
  closers.push(s);
  const a = await runCheck(protocolVersions, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  const f = a.findings[0]!;
  t.is(f.title, 'Deprecated TLS versions offered: SSLv2, SSLv3');
  t.is(f.cvss_vector, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N');
  const v2 = s.hellos.find((h) => h.kind === 'sslv2')!;
  t.deepEqual(v2.suites, [...SSL2_CIPHER_KINDS.keys()]);
});

withGnutls('real GnuTLS server with TLS 1.0 and 1.1 enabled: both reported, SSLv2/SSLv3 refused with its answer', async (t) => {
  const g = await startGnutlsTarget({ certPem: leaf.chainPem, keyPem: leaf.keyPem, priority: 'NORMAL:+VERS-TLS1.0:+VERS-TLS1.1' });
  closers.push(g);
  const a = await runCheck(protocolVersions, urlTarget(`${g.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  const ev = a.findings[0]!.evidence!;
  t.deepEqual(ev.protocols_offered, ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
  t.deepEqual(ev.protocols_refused, { SSLv2: 'alert protocol_version', SSLv3: 'alert protocol_version' });
  t.is(a.findings[0]!.cvss_vector, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N');
});

test('negative: a TLS 1.2+ server gives no finding and SSLv2/SSLv3 are refused (not "not testable")', async (t) => {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, minVersion: 'TLSv1.2' });
  closers.push(s);
  const a = await runCheck(protocolVersions, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
  t.true(a.logs.some((l) => /offers TLSv1\.2, TLSv1\.3$/.test(l.message)), JSON.stringify(a.logs));
});
