import test from 'ava';
import { runCheck } from '../../../core/author-kit/index.ts';
import type { ScanTarget } from '../../../core/plugin-api/index.ts';
import { weakCiphers } from '../../../scanners/ssl/checks/weak-ciphers.ts';
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

async function gnutls(priority: string): Promise<ScanTarget> {
  const s = await startGnutlsTarget({ certPem: leaf.chainPem, keyPem: leaf.keyPem, priority });
  closers.push(s);
  return urlTarget(`${s.url}/`);
}

type Accepted = Array<{ family: string; protocol: string; suites: string[] }>;

async function accepted(target: ScanTarget) {
  const a = await runCheck(weakCiphers, target, opts);
  if (a.status !== 'completed') throw new Error(`${a.status}: ${a.error}`);
  return { a, hits: (a.findings[0]?.evidence?.accepted ?? []) as Accepted };
}

withGnutls('GnuTLS offering RC4: the RC4 family with every accepted RC4 suite by IANA name (medium)', async (t) => {
  const { a, hits } = await accepted(await gnutls('NORMAL:+ARCFOUR-128'));
  t.deepEqual(hits, [{ family: 'RC4', protocol: 'TLSv1.2', suites: ['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_RC4_128_SHA'] }]);
  t.regex(a.findings[0]!.cvss_vector, /C:H\/I:N\/A:N$/);
  t.is(a.findings[0]!.title, 'Weak TLS cipher suites accepted: RC4');
});

withGnutls('GnuTLS offering 3DES: the 3DES family', async (t) => {
  const { hits } = await accepted(await gnutls('NORMAL:+3DES-CBC'));
  t.deepEqual(hits.map((h) => h.family), ['3DES']);
  t.deepEqual(hits[0]!.suites.sort(), ['TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
});

withGnutls('GnuTLS offering NULL and anonymous DH at TLS 1.0 only: both families, probed at TLS 1.0 (high)', async (t) => {
  const { a, hits } = await accepted(await gnutls('NORMAL:-VERS-ALL:+VERS-TLS1.0:+NULL:+ANON-DH'));
  t.deepEqual(hits.map((h) => h.family), ['NULL', 'anonymous']);
  t.true(hits.every((h) => h.protocol === 'TLSv1'));
  t.true(hits[0]!.suites.includes('TLS_RSA_WITH_NULL_SHA'));
  t.true(hits[1]!.suites.includes('TLS_DH_anon_WITH_AES_128_CBC_SHA'));
  t.regex(a.findings[0]!.cvss_vector, /C:H\/I:H\/A:N$/);
});

test('Node’s OpenSSL server at SECLEVEL=0 offering NULL and anonymous ECDH suites', async (t) => {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-NULL-SHA:AECDH-AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0' });
  closers.push(s);
  const { hits } = await accepted(urlTarget(`${s.url}/`));
  t.deepEqual(hits, [
    { family: 'NULL', protocol: 'TLSv1.2', suites: ['TLS_ECDHE_RSA_WITH_NULL_SHA'] },
    { family: 'anonymous', protocol: 'TLSv1.2', suites: ['TLS_ECDH_anon_WITH_AES_128_CBC_SHA'] },
  ]);
});

test('scripted ServerHello (no real server can still do this): EXPORT and single DES at TLS 1.0', async (t) => {
  const s = await startScriptedServerHello({ versions: [0x0301], suites: [0x0003, 0x0064, 0x0009, 0x002f] });
  closers.push(s);
  const { a, hits } = await accepted(urlTarget(`${s.url}/`));
  t.deepEqual(hits, [
    { family: 'EXPORT', protocol: 'TLSv1', suites: ['TLS_RSA_EXPORT_WITH_RC4_40_MD5', 'TLS_RSA_EXPORT1024_WITH_RC4_56_SHA'] },
    { family: 'DES', protocol: 'TLSv1', suites: ['TLS_RSA_WITH_DES_CBC_SHA'] },
    { family: 'RC4', protocol: 'TLSv1', suites: ['TLS_RSA_EXPORT_WITH_RC4_40_MD5', 'TLS_RSA_EXPORT1024_WITH_RC4_56_SHA'] },
  ]);
  t.regex(a.findings[0]!.cvss_vector, /C:H\/I:H\/A:N$/);
  // The probe offered EXPORT suites alone at TLS 1.0.
  t.true(s.hellos.some((h) => h.clientVersion === 0x0301 && h.suites.includes(0x0003) && !h.suites.includes(0x0009)));
});

test('scripted ServerHello: an SSLv3-only server is probed at SSLv3', async (t) => {
  const s = await startScriptedServerHello({ versions: [0x0300], suites: [0x000a, 0x002f] });
  closers.push(s);
  const { hits } = await accepted(urlTarget(`${s.url}/`));
  t.deepEqual(hits, [{ family: '3DES', protocol: 'SSLv3', suites: ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'] }]);
});

test('negative: a modern server (TLS 1.2+, AEAD only) gives no weak-cipher finding, every family refused', async (t) => {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, minVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305' });
  closers.push(s);
  const { a } = await accepted(urlTarget(`${s.url}/`));
  t.deepEqual(a.findings, []);
  t.true(a.logs.some((l) => /weak families probed at TLSv1\.2: none accepted/.test(l.message)), JSON.stringify(a.logs));
});

withGnutls('negative: GnuTLS with its default NORMAL priority (CBC and AEAD, TLS 1.2/1.3) gives no finding', async (t) => {
  const { a } = await accepted(await gnutls('NORMAL'));
  t.deepEqual(a.findings, []);
});

test('an unreachable endpoint is an error, not a clean result', async (t) => {
  const s = await startScriptedServerHello({});
  await s.close();
  const a = await runCheck(weakCiphers, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'error');
  t.regex(a.error ?? '', /did not answer/);
});
