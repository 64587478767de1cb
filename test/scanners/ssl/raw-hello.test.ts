import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { broadSuites, WEAK_SUITES } from '../../../scanners/ssl/raw/cipher-suites.ts';
import { buildClientHello } from '../../../scanners/ssl/raw/client-hello.ts';
import { acceptedSuites, acceptsVersion, rawProbe } from '../../../scanners/ssl/raw/raw-probe.ts';
import { SSL2, SSL3, TLS10, TLS12, TLS13 } from '../../../scanners/ssl/raw/tls-names.ts';
import { ServerFlightParser, type ServerFlight } from '../../../scanners/ssl/raw/server-flight.ts';
import { startScriptedServerHello, type ScriptedServer } from '../../_helpers/targets/scripted-server-hello.ts';
import { startTlsTarget, type TlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa, type IssuedPem } from '../../_helpers/certificates/weak-certs.ts';

const HRR_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const record = (type: number, body: Buffer) => Buffer.concat([Buffer.from([type, 3, 3]), u16(body.length), body]);

/** A ServerHello handshake message (type 2) with the given extensions. */
function serverHello(version: number, suite: number, exts: Buffer[] = [], random = randomBytes(32)): Buffer {
  const extBlock = exts.length ? Buffer.concat([u16(Buffer.concat(exts).length), ...exts]) : Buffer.alloc(0);
  const body = Buffer.concat([u16(version), random, Buffer.from([0]), u16(suite), Buffer.from([0]), extBlock]);
  return Buffer.concat([Buffer.from([2, 0, body.length >> 8, body.length & 0xff]), body]);
}
const ext = (type: number, data: Buffer) => Buffer.concat([u16(type), u16(data.length), data]);

function feed(chunks: Buffer[], sslv2 = false): ServerFlight | null {
  const p = new ServerFlightParser(sslv2);
  let r: ServerFlight | null = null;
  for (const c of chunks) r = p.push(c);
  return r;
}

let leaf: IssuedPem;
const closers: Array<{ close(): Promise<void> }> = [];
const opts = { timeoutMs: 8000 };
test.before(async () => {
  leaf = await (await createRsaTestCa()).issue();
});
test.after.always(() => Promise.all(closers.map((c) => c.close())));

async function node(tls: Parameters<typeof startTlsTarget>[0]): Promise<TlsTarget> {
  const s = await startTlsTarget({ cert: leaf.chainPem, key: leaf.keyPem, ...tls });
  closers.push(s);
  return s;
}
async function scripted(o: Parameters<typeof startScriptedServerHello>[0]): Promise<ScriptedServer> {
  const s = await startScriptedServerHello(o);
  closers.push(s);
  return s;
}

test('parser: a TLS 1.2 ServerHello fed one byte per read', (t) => {
  const bytes = record(22, serverHello(TLS12, 0x0005));
  const r = feed([...bytes].map((b) => Buffer.from([b])));
  t.deepEqual(r, { kind: 'server_hello', version: TLS12, legacyVersion: TLS12, cipherSuite: 0x0005, keyShareGroup: null });
});

test('parser: a ServerHello split across two records, supported_versions and key_share win over legacy_version', (t) => {
  const msg = serverHello(TLS12, 0x1301, [ext(0x002b, u16(TLS13)), ext(0x0033, Buffer.concat([u16(0x001d), u16(32), randomBytes(32)]))]);
  const r = feed([Buffer.concat([record(22, msg.subarray(0, 3)), record(22, msg.subarray(3, 40))]), record(22, msg.subarray(40))]);
  t.deepEqual(r, { kind: 'server_hello', version: TLS13, legacyVersion: TLS12, cipherSuite: 0x1301, keyShareGroup: 0x001d });
});

test('parser: a HelloRetryRequest is told apart by its random and names the selected group', (t) => {
  const r = feed([record(22, serverHello(TLS12, 0x1301, [ext(0x002b, u16(TLS13)), ext(0x0033, u16(0x11ec))], HRR_RANDOM))]);
  t.deepEqual(r, { kind: 'hello_retry_request', version: TLS13, cipherSuite: 0x1301, selectedGroup: 0x11ec });
});

test('parser: alerts are named; an HTTP answer is not TLS', (t) => {
  t.deepEqual(feed([record(21, Buffer.from([2, 70]))]), { kind: 'alert', level: 2, description: 70, name: 'protocol_version' });
  t.like(feed([Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n')]), { kind: 'not_tls' });
  t.like(feed([record(22, Buffer.from([11, 0, 0, 0]))]), { kind: 'not_tls', reason: 'handshake type 11 where ServerHello was expected' });
});

test('parser: truncated and oversized lengths are not_tls, and random or mutated input never throws', (t) => {
  const good = record(22, serverHello(TLS12, 0x0005, [ext(0x002b, u16(TLS12))]));
  const badExtLen = Buffer.from(good);
  badExtLen.writeUInt16BE(0xffff, good.length - 8); // extension block length beyond the message
  t.like(feed([badExtLen]), { kind: 'not_tls' });
  t.like(feed([Buffer.from([22, 3, 3, 0xff, 0xff])]), { kind: 'not_tls', reason: 'record length 65535' });
  for (let i = 0; i < 3000; i++) {
    const input = i % 2 ? randomBytes(1 + (i % 90)) : Buffer.from(good).fill(i & 0xff, i % good.length, Math.min(good.length, (i % good.length) + 1 + (i % 5)));
    const cut = i % input.length;
    t.notThrows(() => feed([input.subarray(0, cut), input.subarray(cut)], i % 3 === 0));
  }
});

test('parser: SSLv2 SERVER-HELLO lists the cipher kinds', (t) => {
  const body = Buffer.concat([Buffer.from([4, 0, 1]), u16(2), u16(3), u16(6), u16(0), Buffer.from([0xaa, 0xbb, 0xcc]), Buffer.from([1, 0, 0x80, 7, 0, 0xc0])]);
  t.deepEqual(feed([Buffer.concat([u16(0x8000 | body.length), body])], true), { kind: 'sslv2_server_hello', cipherKinds: [0x010080, 0x0700c0] });
});

test('hello builder: Node’s OpenSSL server answers our TLS 1.2 hello with a suite we offered', async (t) => {
  const s = await node({ maxVersion: 'TLSv1.2' });
  const o = await rawProbe({ host: '127.0.0.1', port: s.port, ...opts }, buildClientHello({ version: TLS12, cipherSuites: broadSuites(TLS12).map((x) => x.id), serverName: 'localhost' }));
  t.like(o, { kind: 'server_hello', version: TLS12 });
  t.true(broadSuites(TLS12).some((x) => o.kind === 'server_hello' && x.id === o.cipherSuite));
});

test('acceptsVersion: a real TLS 1.2+ server refuses SSLv3 and TLS 1.0 and does not speak SSLv2', async (t) => {
  const s = await node({ minVersion: 'TLSv1.2' });
  const target = { host: '127.0.0.1', port: s.port, ...opts };
  const v3 = await acceptsVersion(target, SSL3);
  t.false(v3.accepted);
  // OpenSSL 3 has no SSLv3 code at all: it refuses with an alert (handshake_failure), not by hanging up.
  t.like(v3.outcome, { kind: 'alert', level: 2 });
  t.false((await acceptsVersion(target, TLS10)).accepted);
  t.false((await acceptsVersion(target, SSL2)).accepted);
  t.true((await acceptsVersion(target, TLS12)).accepted);
  t.true((await acceptsVersion(target, TLS13)).accepted, 'empty key_share → HelloRetryRequest at TLS 1.3');
});

test('acceptedSuites (scripted ServerHello, fragmented into 7-byte TCP segments): every accepted suite of a family, nothing else', async (t) => {
  const rc4 = WEAK_SUITES.filter((s) => /_RC4_/.test(s.name));
  const s = await scripted({ versions: [TLS10], suites: [0x0005, 0xc011, 0x000a], fragment: true });
  const e = await acceptedSuites({ host: '127.0.0.1', port: s.port, ...opts }, TLS10, rc4);
  t.deepEqual(e.accepted.map((x) => x.name).sort(), ['TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_RC4_128_SHA']);
  t.like(e.last, { kind: 'alert', name: 'handshake_failure' });
  t.is(s.hellos.length, 3);
  t.true(s.hellos.every((h) => h.clientVersion === TLS10 && h.suites.every((id) => rc4.some((x) => x.id === id))));
});

test('rawProbe: silence is a timeout, an abort is an abort, a closed port is an error; sockets are released', async (t) => {
  const held: Array<{ destroy(): void }> = [];
  const silent: Server = createServer((sock) => {
    held.push(sock);
    sock.resume(); // read, so the client's FIN is seen and the connection counted as closed
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  // Also when an assertion below fails: a listener left open keeps the file from exiting.
  t.teardown(() => {
    held.forEach((s) => s.destroy());
    silent.close(() => {});
  });
  const port = (silent.address() as AddressInfo).port;
  const hello = buildClientHello({ version: TLS12, cipherSuites: [0x002f] });
  t.deepEqual(await rawProbe({ host: '127.0.0.1', port, timeoutMs: 200 }, hello), { kind: 'timeout', ms: 200 });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  t.deepEqual(await rawProbe({ host: '127.0.0.1', port, timeoutMs: 5000, signal: ac.signal }, hello), { kind: 'aborted' });
  await new Promise((r) => setTimeout(r, 100));
  const open = await new Promise<number>((r) => silent.getConnections((_e, n) => r(n)));
  t.is(open, 0, 'the probe destroyed its sockets');
  held.forEach((s) => s.destroy());
  await new Promise<void>((r) => silent.close(() => r()));
  t.like(await rawProbe({ host: '127.0.0.1', port, timeoutMs: 2000 }, hello), { kind: 'error' });
});
