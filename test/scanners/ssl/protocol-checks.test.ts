import test from 'ava';
import { getDiffieHellman } from 'node:crypto';
import { runCheck } from '../../../core/author-kit/index.ts';
import { hsts } from '../../../scanners/ssl/checks/hsts.ts';
import { keyExchange } from '../../../scanners/ssl/checks/key-exchange.ts';
import { protocolVersions } from '../../../scanners/ssl/checks/protocol-versions.ts';
import { tls10Cbc } from '../../../scanners/ssl/checks/tls10-cbc.ts';
import { weakCiphers } from '../../../scanners/ssl/checks/weak-ciphers.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { startTlsTarget, type TlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa, type IssuedPem } from '../../_helpers/certificates/weak-certs.ts';

let leaf: IssuedPem;
const servers: TlsTarget[] = [];
// Generous limits: a loopback handshake is instant, but a loaded CI box can starve the event loop.
const opts = { timeoutMs: 30_000, options: { handshake_timeout_ms: 8000 } };

test.before(async () => {
  const ca = await createRsaTestCa();
  leaf = await ca.issue();
});
test.after.always(() => Promise.all(servers.map((s) => s.close())));

async function serve(tls: Parameters<typeof startTlsTarget>[0], handler?: Parameters<typeof startTlsTarget>[1]) {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, ...tls }, handler);
  servers.push(s);
  return urlTarget(`${s.url}/`);
}

/** DER DHparams (SEQUENCE { INTEGER p, INTEGER g }) as PEM, for a deliberately small group. */
function dhParamsPem(p: Buffer, g: number): string {
  const int = (b: Buffer) => (b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
  const tlv = (tag: number, body: Buffer) => {
    const len = body.length < 128 ? Buffer.from([body.length]) : body.length < 256 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 255]);
    return Buffer.concat([Buffer.from([tag]), len, body]);
  };
  const der = tlv(0x30, Buffer.concat([tlv(0x02, int(p)), tlv(0x02, Buffer.from([g]))]));
  return `-----BEGIN DH PARAMETERS-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END DH PARAMETERS-----\n`;
}

test('protocol-versions reports TLS 1.0 and 1.1 when the server offers them', async (t) => {
  const a = await runCheck(protocolVersions, await serve({ minVersion: 'TLSv1', maxVersion: 'TLSv1.2' }), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  const ev = a.findings[0]!.evidence!;
  t.deepEqual(ev.protocols_offered, ['TLSv1', 'TLSv1.1', 'TLSv1.2']);
  t.like(ev.protocols_refused, { SSLv3: 'alert handshake_failure' });
  t.regex(a.findings[0]!.title, /TLSv1, TLSv1\.1/);
});

test('protocol-versions reports nothing for a TLS 1.2+ server', async (t) => {
  const a = await runCheck(protocolVersions, await serve({ minVersion: 'TLSv1.2' }), opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
  t.true(a.logs.some((l) => /offers TLSv1\.2, TLSv1\.3/.test(l.message)));
});

test('weak-ciphers reports NULL suites the server accepts, by IANA name', async (t) => {
  const a = await runCheck(weakCiphers, await serve({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-NULL-SHA:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0' }), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  const ev = a.findings[0]!.evidence as { accepted: Array<{ family: string; suites: string[] }> };
  t.deepEqual(ev.accepted, [{ family: 'NULL', protocol: 'TLSv1.2', suites: ['TLS_ECDHE_RSA_WITH_NULL_SHA'] }]);
});

test('weak-ciphers reports nothing for a server with AEAD suites only', async (t) => {
  const a = await runCheck(weakCiphers, await serve({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
});

test('tls10-cbc reports a CBC suite chosen at TLS 1.0', async (t) => {
  const a = await runCheck(tls10Cbc, await serve({ minVersion: 'TLSv1' }), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  t.is(a.findings[0]!.evidence!.protocol, 'TLSv1');
  t.regex(String(a.findings[0]!.evidence!.cipher), /CBC/);
});

test('tls10-cbc reports nothing when TLS 1.0 is refused', async (t) => {
  const a = await runCheck(tls10Cbc, await serve({ minVersion: 'TLSv1.2' }), opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
});

test('hsts reports a missing header on HTTPS', async (t) => {
  const a = await runCheck(hsts, await serve({}), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  t.is(a.findings[0]!.evidence!.response_indicator, 'no strict-transport-security header');
});

test('hsts reports nothing for a long max-age', async (t) => {
  const target = await serve({}, (_req, res) => {
    res.setHeader('strict-transport-security', 'max-age=31536000; includeSubDomains');
    res.end('ok');
  });
  const a = await runCheck(hsts, target, opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
});

test('key-exchange flags a 1024-bit DH group', async (t) => {
  const modp2 = getDiffieHellman('modp2');
  const dhparam = dhParamsPem(modp2.getPrime(), 2);
  const a = await runCheck(keyExchange, await serve({ maxVersion: 'TLSv1.2', ciphers: 'DHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0', dhparam }), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  t.regex(a.findings[0]!.title, /Weak Diffie-Hellman key exchange \(1024 bits\)/);
});

test('key-exchange reports the ECDHE group as info; Node 20 offers no post-quantum group', async (t) => {
  const a = await runCheck(keyExchange, await serve({ ecdhCurve: 'X25519' }), opts);
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  t.is(a.findings[0]!.title, 'TLS key exchange: X25519');
  t.regex(a.findings[0]!.cvss_vector, /C:N\/I:N\/A:N$/);
  t.deepEqual(a.findings[0]!.evidence!.post_quantum_offered, []);
});
