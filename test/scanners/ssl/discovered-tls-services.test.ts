import test from 'ava';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { ScanTarget } from '../../../core/plugin-api/index.ts';
import { anyTls, httpsOnly, tlsTargets } from '../../../scanners/ssl/across-tls-services.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { startTlsTarget, type TlsTarget } from '../../_helpers/targets/tls-target.ts';
import { createRsaTestCa } from '../../_helpers/certificates/weak-certs.ts';

const ip: ScanTarget = { assetId: 'ast_1', assetType: 'ip', name: '127.0.0.1', host: '127.0.0.1' };
const services = [
  { host: '127.0.0.1', port: 8443, service: 'https', tls: true },
  { host: '127.0.0.1', port: 993, service: 'tls', tls: true },
  { host: '127.0.0.1', port: 80, service: 'http', tls: false },
];

test('without service discovery an ssl check inspects the target itself', (t) => {
  t.deepEqual(tlsTargets(ip, undefined, anyTls), [ip]);
});

test('with discovery: every TLS service, HTTPS-only for HTTP checks, and no guessed 443', (t) => {
  t.deepEqual(tlsTargets(ip, services, anyTls).map((x) => `${x.host}:${x.port}`), ['127.0.0.1:8443', '127.0.0.1:993']);
  t.deepEqual(tlsTargets(ip, services, httpsOnly).map((x) => `${x.host}:${x.port}`), ['127.0.0.1:8443']);
  t.deepEqual(tlsTargets(ip, [], anyTls), []);
});

test('a URL keeps its own port; a domain addresses discovered ports by its name (SNI), once per port', (t) => {
  const url: ScanTarget = { assetId: 'a', assetType: 'url', name: 'https://app.example.test:9443/x', host: 'app.example.test', port: 9443, url: 'https://app.example.test:9443/x' };
  const found = [{ host: '127.0.0.1', port: 9443, service: 'https', tls: true }, { host: '127.0.0.2', port: 8443, service: 'tls', tls: true }, { host: '127.0.0.1', port: 8443, service: 'tls', tls: true }];
  const list = tlsTargets(url, found, anyTls);
  t.is(list[0], url);
  t.deepEqual(list.slice(1).map((x) => `${x.host}:${x.port}`), ['app.example.test:8443']);
  const domain: ScanTarget = { assetId: 'd', assetType: 'domain', name: 'example.test', host: 'example.test' };
  t.deepEqual(tlsTargets(domain, found, anyTls).map((x) => `${x.host}:${x.port}:${x.url ?? ''}`), ['example.test:9443:', 'example.test:8443:']);
});

let t0: TestApp;
let legacy: TlsTarget;
let onNetwork: TlsTarget;
let imaps: TlsServer;
let imapsPort: number;
const sockets = new Set<import('node:net').Socket>();

test.before(async () => {
  const ca = await createRsaTestCa();
  const good = await ca.issue({ ips: ['127.0.0.1'] });
  const selfSigned = await ca.issue({ ips: ['127.0.0.1'], selfSigned: true });
  // An HTTPS server that still accepts TLS 1.0/1.1 and sends no HSTS header.
  legacy = await startTlsTarget({ cert: good.chainPem, key: good.keyPem, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
  // A host of a network asset (127.0.5.0/30 is loopback on Linux) with TLS 1.0 still enabled.
  onNetwork = await startTlsTarget({ cert: good.chainPem, key: good.keyPem, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, undefined, '127.0.5.1');
  // A TLS service that is not HTTP (an IMAPS-like greeting) with a self-signed certificate.
  imaps = createTlsServer({ cert: selfSigned.chainPem, key: selfSigned.keyPem, minVersion: 'TLSv1.2' }, (socket) => socket.end('* OK IMAP4rev1 ready\r\n'));
  imaps.on('tlsClientError', () => {});
  imaps.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => imaps.listen(0, '127.0.0.1', r));
  imapsPort = (imaps.address() as AddressInfo).port;
  t0 = await createTestApp({
    scans: { worker: { leaseMs: 30_000, heartbeatMs: 500 } },
    plugins: {
      builtinOptions: {
        ssl: { extra_ca_pem: ca.certPem },
        // On loopback every address answers RST: only an accepting port proves a host here.
        network: { refused_means_up: false, discovery_ports: String(onNetwork.port) },
      },
    },
  });
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => {
  await t0?.close();
  await legacy?.close();
  await onNetwork?.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => imaps?.close(r));
});

test('the ssl checks inspect the TLS ports the port scanner found in the same scan', async (t) => {
  const assetId = await createAsset(t0, '127.0.0.1', 'ip');
  const res = await t0.request('POST', '/api/scan/create', {
    payload: { asset_id: assetId, scan_type: 'custom', options: { categories: ['ports', 'tls', 'certificate', 'headers'], ports: `${legacy.port},${imapsPort}` } },
  });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 120_000);
  const checks = (await t0.ctx.db('scan_checks').where({ scan_id: scan.scan_id })) as Array<{ check_id: string; status: string; error: string | null; services: string | null; completed_at: number }>;
  t.is(scan.status, 'completed', JSON.stringify(checks));
  t.deepEqual(checks.filter((c) => c.status !== 'completed').map((c) => `${c.check_id}: ${c.error}`), []);

  const portCheck = checks.find((c) => c.check_id === 'port:tcp-services')!;
  const stored = JSON.parse(portCheck.services ?? '[]') as Array<{ port: number; tls: boolean; service: string }>;
  t.deepEqual(stored.map((s) => `${s.port}/${s.service}/${s.tls}`).sort(), [`${legacy.port}/https/true`, `${imapsPort}/tls/true`].sort());
  for (const c of checks.filter((x) => x.check_id.startsWith('ssl:'))) t.true(Number(c.completed_at) >= Number(portCheck.completed_at), `${c.check_id} ran after the port scan`);

  const results = await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`);
  const rows = results.body.data as Array<{ title: string; location: string | null; evidence: Record<string, unknown> }>;
  // The port as a whole number: a test server on port 44312 must not count as 443 or 4431.
  const mentions = (f: unknown, port: number) => new RegExp(`127\\.0\\.0\\.1:${port}(?!\\d)`).test(JSON.stringify(f));
  const at = (port: number) => rows.filter((f) => mentions(f, port)).map((f) => f.title);
  const legacyTitles = at(legacy.port);
  t.true(legacyTitles.some((x) => x.startsWith('Deprecated TLS versions offered: TLSv1, TLSv1.1')), legacyTitles.join(' | '));
  t.true(legacyTitles.some((x) => /Strict-Transport-Security/.test(x)), 'HSTS is judged on the HTTPS port');
  t.false(legacyTitles.some((x) => /self-signed/i.test(x)));
  const imapsTitles = at(imapsPort);
  t.true(imapsTitles.some((x) => /self-signed/i.test(x)), imapsTitles.join(' | '));
  t.false(imapsTitles.some((x) => /Strict-Transport-Security/.test(x)), 'no HSTS verdict on a TLS port that does not speak HTTP');
  t.false(imapsTitles.some((x) => x.startsWith('Deprecated TLS')), 'the TLS 1.2+ service offers no deprecated version');
  t.false(rows.some((f) => mentions(f, 443)), 'no guessed port 443 when the port scan did not find it');
});

test('a full scan of a network asset runs the ssl checks on the TLS ports found on its live hosts', async (t) => {
  const assetId = await createAsset(t0, '127.0.5.0/30', 'network');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'full', options: { ports: String(onNetwork.port) } } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id, undefined, 120_000);
  const checks = (await t0.ctx.db('scan_checks').where({ scan_id: scan.scan_id })) as Array<{ check_id: string; status: string; error: string | null }>;
  t.is(scan.status, 'completed', JSON.stringify(checks));
  t.deepEqual(checks.filter((c) => c.status !== 'completed').map((c) => `${c.check_id}: ${c.error}`), []);
  t.is(checks.filter((c) => c.check_id.startsWith('ssl:')).length, 11);
  const rows = (await t0.request('GET', `/api/scan/${scan.scan_id}/results?per_page=100`)).body.data as Array<{ title: string }>;
  const at = (title: string) => rows.find((f) => f.title === title && JSON.stringify(f).includes(`127.0.5.1:${onNetwork.port}`));
  t.truthy(at('Deprecated TLS versions offered: TLSv1, TLSv1.1'), rows.map((f) => f.title).join(' | '));
  t.truthy(at('Missing HTTP Strict-Transport-Security header'));
  // The certificate names 127.0.0.1 only: reached as 127.0.5.1 it does not match, and says so.
  t.truthy(at('TLS certificate does not cover 127.0.5.1'));
  t.false(rows.some((f) => /self-signed|untrusted/i.test(f.title)), 'trusted CA, not self-signed');
});
