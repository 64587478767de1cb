import test from 'ava';
import { runCheck } from '../../../core/author-kit/index.ts';
import { certHostname } from '../../../scanners/ssl/checks/cert-hostname.ts';
import { certSelfSigned } from '../../../scanners/ssl/checks/cert-self-signed.ts';
import { certSignature } from '../../../scanners/ssl/checks/cert-signature.ts';
import { certUntrusted } from '../../../scanners/ssl/checks/cert-untrusted.ts';
import { certValidity } from '../../../scanners/ssl/checks/cert-validity.ts';
import { certWeakKey } from '../../../scanners/ssl/checks/cert-weak-key.ts';
import type { ScanTarget, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { startTlsTarget, type TlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa, type RsaLeafOptions, type RsaTestCa } from '../../_helpers/certificates/weak-certs.ts';

const DAY = 86_400_000;
let ca: RsaTestCa;
let good: ScanTarget;
const servers: TlsTarget[] = [];

async function serve(leaf: RsaLeafOptions): Promise<ScanTarget> {
  const pem = await ca.issue(leaf);
  const s = await startTlsTarget({ cert: pem.chainPem, key: pem.keyPem });
  servers.push(s);
  return urlTarget(`${s.url}/`);
}

function run(check: ScannerCheck, target: ScanTarget, trusted = true) {
  return runCheck(check, target, { timeoutMs: 30_000, options: { handshake_timeout_ms: 8000, ...(trusted ? { extra_ca_pem: ca.certPem } : {}) } });
}

test.before(async () => {
  ca = await createRsaTestCa();
  good = await serve({});
});
test.after.always(() => Promise.all(servers.map((s) => s.close())));

test('a well-formed certificate from a trusted CA gives no certificate finding', async (t) => {
  for (const check of [certValidity, certSelfSigned, certUntrusted, certHostname, certWeakKey, certSignature]) {
    const a = await run(check, good);
    t.is(a.status, 'completed', `${check.id}: ${a.error}`);
    t.deepEqual(a.findings, [], check.id);
  }
});

test('cert-validity reports an expired certificate with its notAfter', async (t) => {
  const a = await run(certValidity, await serve({ notBefore: new Date(Date.now() - 40 * DAY), notAfter: new Date(Date.now() - 2 * DAY) }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.title, 'TLS certificate has expired');
  t.regex(String(a.findings[0]!.evidence!.response_indicator), /^notAfter /);
});

test('cert-validity reports a certificate that is not yet valid', async (t) => {
  const a = await run(certValidity, await serve({ notBefore: new Date(Date.now() + 2 * DAY), notAfter: new Date(Date.now() + 90 * DAY) }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.title, 'TLS certificate is not yet valid');
});

test('cert-validity reports a certificate expiring within 30 days', async (t) => {
  const a = await run(certValidity, await serve({ notAfter: new Date(Date.now() + 10 * DAY + 3600_000) }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.title, 'TLS certificate expires in 10 days');
  t.is(a.findings[0]!.evidence!.days_left, 10);
});

test('cert-self-signed reports a self-signed leaf; cert-untrusted leaves it alone', async (t) => {
  const target = await serve({ selfSigned: true });
  const a = await run(certSelfSigned, target);
  t.is(a.findings.length, 1, a.error);
  t.regex(a.findings[0]!.title, /self-signed/);
  t.deepEqual((await run(certUntrusted, target)).findings, []);
});

test('cert-untrusted reports a chain the scanner does not trust', async (t) => {
  const a = await run(certUntrusted, good, false);
  t.is(a.findings.length, 1, a.error);
  // The server sends its root too, so OpenSSL stops at the untrusted self-signed root.
  t.regex(String(a.findings[0]!.evidence!.verify_error), /^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/);
});

test('cert-hostname reports a certificate for other names', async (t) => {
  const a = await run(certHostname, await serve({ dnsNames: ['other.example.test'], ips: [] }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.evidence!.requested_name, '127.0.0.1');
  t.regex(String(a.findings[0]!.evidence!.response_indicator), /other\.example\.test/);
});

test('cert-weak-key reports a 1024-bit RSA key', async (t) => {
  const a = await run(certWeakKey, await serve({ bits: 1024 }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.evidence!.key_bits, 1024);
});

test('cert-signature reports a SHA-1 signed leaf', async (t) => {
  const a = await run(certSignature, await serve({ hash: 'SHA-1' }));
  t.is(a.findings.length, 1, a.error);
  t.is(a.findings[0]!.evidence!.response_indicator, 'sha1WithRSAEncryption');
});
