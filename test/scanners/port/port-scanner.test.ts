import test from 'ava';
import { createServer, type Server } from 'node:net';
import plugin from '../../../scanners/port/index.ts';
import { parsePorts } from '../../../scanners/_lib/port-list.ts';
import { classifyGreeting, probeService } from '../../../scanners/_lib/service-probes.ts';
import { scanPorts, tcpConnect } from '../../../scanners/_lib/tcp-connect.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import type { ScanTarget } from '../../../core/plugin-api/index.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';

// Ava needs every test declared before the first await ends: ask first. One test needs this
// machine's own Redis and MariaDB on their standard ports (CI has both).
const servicesUp = (await serviceAvailable('Redis', 'redis://127.0.0.1:6379')) && (await serviceAvailable('MariaDB', 'mysql://127.0.0.1:3306'));

const target: ScanTarget = { assetId: 'ast_x', assetType: 'ip', name: '127.0.0.1', host: '127.0.0.1' };
const check = plugin.checks[0]!;

async function listen(onConnection: (socket: import('node:net').Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined); // the scanner resets connections it is done with
    onConnection(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

async function closedPort(): Promise<number> {
  const { server, port } = await listen(() => undefined);
  await new Promise((r) => server.close(r));
  return port;
}

test('connect scan: open, closed, and the listeners found among closed ports', async (t) => {
  const a = await listen((s) => s.end());
  const b = await listen((s) => s.end());
  t.teardown(() => {
    a.server.close();
    b.server.close();
  });
  const closed = await closedPort();
  t.is(await tcpConnect('127.0.0.1', a.port, { timeoutMs: 2000 }), 'open');
  t.is(await tcpConnect('127.0.0.1', closed, { timeoutMs: 2000 }), 'closed');
  const result = await scanPorts('127.0.0.1', [a.port, closed, b.port], { concurrency: 2, timeoutMs: 2000 });
  t.deepEqual(result.open, [a.port, b.port].sort((x, y) => x - y));
  t.is(result.closed, 1);
});

test('self-connects on loopback are dropped, never reported open', async (t) => {
  // With nothing listening, a connect whose source port equals its destination port
  // completes a TCP simultaneous open with itself: a plain net.connect says "connected".
  const port = await closedPort();
  const net = await import('node:net');
  const raw = await new Promise<string>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1', localPort: port });
    s.once('connect', () => {
      resolve(`connected ${s.localPort}->${s.remotePort}`);
      s.destroy();
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
  t.is(raw, `connected ${port}->${port}`, 'the trap is real on this machine');
  const otherPort = await closedPort();
  t.is(await tcpConnect('127.0.0.1', otherPort, { timeoutMs: 2000, localPort: otherPort }), 'closed');
});

test('port specs: top, top:N, all, lists and ranges; bad ones rejected', (t) => {
  t.true(parsePorts(undefined).includes(6379));
  t.deepEqual(parsePorts('top:3'), [80, 23, 443]);
  t.is(parsePorts('all').length, 65535);
  t.deepEqual(parsePorts('22,80,8000-8002,80'), [22, 80, 8000, 8001, 8002]);
  t.throws(() => parsePorts('70000'));
  t.throws(() => parsePorts('9-1'));
});

test('service detection by banner and probes: SSH, SMTP, FTP, HTTP, TLS-less unknown', async (t) => {
  const servers = [
    await listen((s) => s.end('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n')),
    await listen((s) => s.write('220 mail.example.test ESMTP Postfix\r\n')),
    await listen((s) => s.write('220 (vsFTPd 3.0.3)\r\n')),
    await listen((s) => s.once('data', () => s.end('HTTP/1.1 200 OK\r\nServer: test-httpd/1.0\r\nContent-Length: 0\r\n\r\n'))),
    await listen((s) => s.write(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20]))),
  ];
  t.teardown(() => servers.forEach(({ server }) => server.close()));
  const found = [];
  for (const { port } of servers) found.push(await probeService('127.0.0.1', port, { timeoutMs: 3000 }));
  t.deepEqual(found.map((f) => f.service), ['ssh', 'smtp', 'ftp', 'http', 'telnet']);
  t.is(found[0]!.banner, 'SSH-2.0-OpenSSH_9.2p1 Debian-2');
  t.is(found[3]!.details.server, 'test-httpd/1.0');
  t.is(classifyGreeting(Buffer.from([0x0a, 0, 0, 0, 0x0a, 0x38, 0x2e, 0x30, 0, 1, 2, 3, 4, 5]), 3306)?.service, 'mysql');
});

(servicesUp ? test : test.skip)('the real Redis (no auth) and MariaDB on this machine: services and risky-exposure findings with CVSS vectors', async (t) => {
  const attempt = await runCheck(check, target, { options: { ports: '6379,3306', concurrency: 10, connect_timeout_ms: 2000, probe_timeout_ms: 3000 }, timeoutMs: 20_000 });
  t.is(attempt.status, 'completed', attempt.error);
  const byLocation = new Map(attempt.findings.map((f) => [f.location, f]));
  const redis = byLocation.get('127.0.0.1:6379/tcp')!;
  t.is(redis.evidence?.service, 'redis');
  const noAuth = byLocation.get('127.0.0.1:6379/tcp#no-auth');
  if (redis.evidence?.reply === '+PONG') {
    t.is(noAuth?.title, 'Redis accepts commands without authentication, reachable on this host only');
    t.is(noAuth?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  } else {
    t.is(noAuth, undefined, 'Redis with authentication is only "reachable"');
  }
  const maria = byLocation.get('127.0.0.1:3306/tcp')!;
  t.is(maria.evidence?.service, 'mysql');
  t.regex(String(maria.evidence?.response_indicator), /MariaDB|mysql|\d+\.\d+/i);
  // root gets in without a password on this machine (and in CI): that replaces the reachability line.
  const db = byLocation.get('127.0.0.1:3306/tcp#no-password')!;
  t.is(db.title, 'MySQL/MariaDB accepts password-less logins (root), reachable on this host only');
  t.is(byLocation.get('127.0.0.1:3306/tcp#database'), undefined);
  t.true(db.cvss_vector.startsWith('CVSS:3.1/AV:L/'), 'a loopback service is scored as reachable on this host only');
});

test('telnet and FTP in clear text are findings; the check stays inside its scope', async (t) => {
  const ftp = await listen((s) => s.write('220 ProFTPD Server ready\r\n'));
  t.teardown(() => ftp.server.close());
  const attempt = await runCheck(check, target, { options: { ports: String(ftp.port) }, timeoutMs: 10_000 });
  t.true(attempt.findings.some((f) => f.title === 'FTP service transmits credentials in clear text, reachable on this host only' && f.cvss_vector === 'CVSS:3.1/AV:L/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N'));
  const denied = await runCheck(check, target, { options: { ports: String(ftp.port) }, deny: ['127.0.0.0/8'], timeoutMs: 10_000 });
  t.is(denied.status, 'error');
  t.regex(denied.error!, /no address of 127\.0\.0\.1 is in scope/);
  t.is(denied.findings.length, 0);
});

test('the check reports its progress as ports are done, up to the whole', async (t) => {
  const a = await listen((s) => s.end());
  t.teardown(() => a.server.close());
  const from = Math.max(1, a.port - 1500);
  const seen: number[] = [];
  const attempt = await runCheck(check, target, { options: { ports: `${from}-${from + 2999},${a.port}` }, timeoutMs: 30_000, onProgress: (f) => seen.push(f) });
  t.is(attempt.status, 'completed', attempt.error);
  t.true(seen.filter((f) => f > 0 && f < 0.9).length >= 10, `progress moved while connecting: ${seen.join(' ')}`);
  t.deepEqual(seen, [...seen].sort((x, y) => x - y), 'never backwards');
  t.is(seen.at(-1), 1);
});
