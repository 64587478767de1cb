import test from 'ava';
import { runCheck } from '../../../core/author-kit/index.ts';
import { keyExchange } from '../../../scanners/ssl/checks/key-exchange.ts';
import { pqNodeOpenssl, pqNodePath, PQ_NODE_VERSION, startPqTlsServer } from '../../_helpers/targets/pq-tls-server.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { startTlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa, type IssuedPem } from '../../_helpers/certificates/weak-certs.ts';

let leaf: IssuedPem;
const closers: Array<{ close(): Promise<void> }> = [];
const opts = { timeoutMs: 60_000, options: { handshake_timeout_ms: 8000 } };
const openssl = pqNodeOpenssl();
// Only a missing binary skips (non-Linux-x64, or .ci/run's fetch not done); CI requires it.
const pqTest = openssl || process.env.RAMPART_REQUIRE_PQ_NODE ? test : test.skip;
if (!openssl) console.log(`post-quantum positive tests skipped: no Node ${PQ_NODE_VERSION} binary at ${pqNodePath()} (set RAMPART_PQ_NODE or run the fetch in .ci/run)`);

test.before(async () => {
  leaf = await (await createRsaTestCa()).issue();
});
test.after.always(() => Promise.all(closers.map((c) => c.close())));

pqTest(`Node ${PQ_NODE_VERSION} (OpenSSL 3.5) with its default groups: X25519MLKEM768 offered, learned from the HelloRetryRequest`, async (t) => {
  t.regex(openssl ?? '', /^3\.([5-9]|\d\d)\./, 'the Node 24 binary bundles OpenSSL >= 3.5');
  const s = await startPqTlsServer({ certPem: leaf.chainPem, keyPem: leaf.keyPem });
  closers.push(s);
  const a = await runCheck(keyExchange, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  const ev = a.findings[0]!.evidence!;
  t.deepEqual(ev.post_quantum_offered, ['X25519MLKEM768']);
  t.deepEqual((ev.post_quantum_probes as Array<{ answer: string }>)[0], { group: 'X25519MLKEM768', answer: 'HelloRetryRequest X25519MLKEM768' });
  t.regex(a.findings[0]!.description, /Hybrid post-quantum groups: X25519MLKEM768\./);
  t.is(a.findings[0]!.remediation, 'None required.');
});

pqTest(`Node ${PQ_NODE_VERSION} configured with all three ML-KEM hybrids: each one found, the Kyber draft not`, async (t) => {
  const s = await startPqTlsServer({ certPem: leaf.chainPem, keyPem: leaf.keyPem, groups: 'SecP384r1MLKEM1024:X25519MLKEM768:SecP256r1MLKEM768:X25519' });
  closers.push(s);
  const a = await runCheck(keyExchange, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings[0]!.evidence!.post_quantum_offered, ['X25519MLKEM768', 'SecP256r1MLKEM768', 'SecP384r1MLKEM1024']);
});

test('negative: Node 20 (OpenSSL 3.0, no ML-KEM) refuses every hybrid group; post_quantum_offered is [] (known no)', async (t) => {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem });
  closers.push(s);
  const a = await runCheck(keyExchange, urlTarget(`${s.url}/`), opts);
  t.is(a.status, 'completed', a.error);
  const ev = a.findings[0]!.evidence!;
  t.deepEqual(ev.post_quantum_offered, []);
  t.true((ev.post_quantum_probes as Array<{ answer: string }>).every((p) => /^alert /.test(p.answer)), JSON.stringify(ev.post_quantum_probes));
  t.regex(a.findings[0]!.description, /Hybrid post-quantum groups: not offered\./);
});
