import test from 'ava';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { ScanTarget } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { hostDiscovery } from '../../../scanners/network/checks/host-discovery.ts';
import { services } from '../../../scanners/network/checks/services.ts';

// 127.0.0.0/8 is all loopback on Linux: 127.0.2.2 and 127.0.2.3 are two "hosts" of 127.0.2.0/29.
const NET = '127.0.2.0/29';
const EMPTY_NET = '127.0.2.8/29';
let port = 0;
const servers: Array<Server | HttpServer> = [];

/** A Redis look-alike that answers PING without AUTH. */
function fakeRedis(): Server {
  return createServer((sock) => {
    sock.on('error', () => {});
    sock.on('data', (d) => sock.write(d.toString().startsWith('PING') ? '+PONG\r\n' : '-ERR unknown command\r\n'));
  });
}

const listen = (s: Server | HttpServer, host: string, p: number) =>
  new Promise<number>((resolve, reject) => {
    s.once('error', reject);
    s.listen(p, host, () => resolve((s.address() as AddressInfo).port));
  });

test.before(async () => {
  // The same port on both hosts, so one discovery port finds both.
  for (let attempt = 0; attempt < 10 && !port; attempt++) {
    const web = createHttpServer((_req, res) => res.end('ok'));
    const redis = fakeRedis();
    const p = await listen(web, '127.0.2.2', 0);
    try {
      await listen(redis, '127.0.2.3', p);
      servers.push(web, redis);
      port = p;
    } catch {
      web.close();
    }
  }
});
test.after.always(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

const network = (cidr: string): ScanTarget => ({ assetId: 'ast_test', assetType: 'network', name: cidr });
// Generous timeouts: a loopback connect answers at once, but a loaded CI box can starve it.
const options = () => ({ discovery_ports: String(port), ports: String(port), refused_means_up: false, discovery_timeout_ms: 3000, connect_timeout_ms: 3000, probe_timeout_ms: 3000 });

test('host-discovery finds the two listening hosts of the range and names their ports', async (t) => {
  const a = await runCheck(hostDiscovery, network(NET), { options: options(), timeoutMs: 15_000 });
  t.is(a.status, 'completed', a.error);
  t.is(a.findings.length, 1);
  t.deepEqual(a.findings[0]!.evidence!.hosts, [
    { host: '127.0.2.2', open: [port], answered: 'open' },
    { host: '127.0.2.3', open: [port], answered: 'open' },
  ]);
  t.is(a.findings[0]!.evidence!.addresses_tried, 6);
});

test('host-discovery reports nothing for a range where nothing answers', async (t) => {
  const a = await runCheck(hostDiscovery, network(EMPTY_NET), { options: options(), timeoutMs: 15_000 });
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
});

test('host-discovery counts a refused connect as a live host when refused_means_up', async (t) => {
  const a = await runCheck(hostDiscovery, network('127.0.2.12/30'), { options: { ...options(), refused_means_up: true }, timeoutMs: 15_000 });
  t.is(a.status, 'completed', a.error);
  t.deepEqual((a.findings[0]!.evidence!.hosts as Array<{ answered: string }>).map((h) => h.answered), ['refused', 'refused']);
});

test('services runs the port checks on each live host; every finding names its host', async (t) => {
  const a = await runCheck(services, network(NET), { options: options(), timeoutMs: 20_000 });
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings.map((f) => f.title).sort(), [
    `127.0.2.2: Open port ${port}/tcp (http)`,
    `127.0.2.3: Open port ${port}/tcp (redis)`,
    '127.0.2.3: Redis accepts commands without authentication, reachable on this host only',
  ]);
  for (const f of a.findings) t.regex(f.location!, /^127\.0\.2\.[23]:/);
  t.true(a.findings.every((f) => f.evidence!.host === f.location!.split(':')[0]));
});

test('services reports nothing when discovery finds no host', async (t) => {
  const a = await runCheck(services, network(EMPTY_NET), { options: options(), timeoutMs: 15_000 });
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
});

test('a range outside the scan scope (deny list) is not touched', async (t) => {
  const a = await runCheck(hostDiscovery, network(NET), { options: options(), timeoutMs: 15_000, deny: ['127.0.2.0/29'] });
  t.is(a.status, 'completed', a.error);
  t.deepEqual(a.findings, []);
  t.true(a.logs.some((l) => /0 live of 0 addresses/.test(l.message)));
});
