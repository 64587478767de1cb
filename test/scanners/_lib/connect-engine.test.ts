import test from 'ava';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { connectScan, connector, SocketExhaustedError } from '../../../scanners/_lib/connect-engine.mjs';
import { scanSharded } from '../../../scanners/_lib/connect-shards.ts';
import { ROOT } from '../../_helpers/harness/spawn-service.ts';
import { systemBinary } from '../../_helpers/targets/netns-hosts.ts';

async function listen(host = '127.0.0.1'): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => {
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as { port: number }).port };
}

/** A block of ports around the listeners: most closed, the listeners open. */
function around(ports: number[], width = 200): number[] {
  const lo = Math.max(1, Math.min(...ports) - width);
  const hi = Math.min(65535, Math.max(...ports) + width);
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

test('libuv handles are the connector here, and both connectors find the same open and closed ports', async (t) => {
  t.is(connector, 'raw', 'Node exposes tcp_wrap: the fast path is in use');
  const a = await listen();
  const b = await listen();
  t.teardown(() => [a, b].forEach((l) => l.server.close()));
  const ports = [...new Set([...around([a.port], 1000), b.port])];
  const [raw] = await connectScan([{ host: '127.0.0.1', ports }], { concurrency: 100, maxTimeoutMs: 2000 });
  const [net] = await connectScan([{ host: '127.0.0.1', ports }], { concurrency: 100, maxTimeoutMs: 2000, sockets: 'net' });
  for (const r of [raw!, net!]) {
    t.true(r.open.includes(a.port) && r.open.includes(b.port));
    t.deepEqual(r.filtered, [], 'loopback answers every port');
    t.is(r.open.length + r.closed, ports.length);
    t.not(r.srttMs, null, 'answers gave an RTT');
  }
});

test('several hosts at once: results per host, progress up to the total', async (t) => {
  const a = await listen('127.0.4.1');
  const b = await listen('127.0.4.2');
  t.teardown(() => [a, b].forEach((l) => l.server.close()));
  const ports = [a.port, b.port, 1, 2, 3];
  const seen: number[] = [];
  const results = await connectScan([{ host: '127.0.4.1', ports }, { host: '127.0.4.2', ports }, { host: '::1', ports: [1] }], { concurrency: 4, maxTimeoutMs: 2000, onProgress: (done) => seen.push(done) });
  t.deepEqual(results.map((r) => r.host), ['127.0.4.1', '127.0.4.2', '::1']);
  t.deepEqual(results[0]!.open, [a.port]);
  t.deepEqual(results[1]!.open, [b.port]);
  t.is(results[0]!.closed, 4);
  t.is(results[2]!.closed, 1, 'IPv6 loopback: closed');
  t.is(seen.at(-1), 11);
  t.deepEqual(seen, [...seen].sort((x, y) => x - y), 'progress only moves forward');
});

test('a large scan spread over threads finds exactly what one thread finds', async (t) => {
  const listeners = await Promise.all(Array.from({ length: 3 }, () => listen()));
  t.teardown(() => listeners.forEach((l) => l.server.close()));
  const ports = [...new Set([...around([listeners[0]!.port], 5000), ...listeners.map((l) => l.port)])];
  let progress = 0;
  const [single] = await scanSharded([{ host: '127.0.0.1', ports }], { concurrency: 200, maxTimeoutMs: 2000, threads: 1 });
  const [sharded] = await scanSharded([{ host: '127.0.0.1', ports }], { concurrency: 200, maxTimeoutMs: 2000, threads: 2, onProgress: (done) => (progress = done) });
  for (const l of listeners) t.true(sharded!.open.includes(l.port), `listener ${l.port} found by the sharded scan`);
  // Other processes on this machine open and close loopback listeners: compare ours, and the totals.
  t.is(sharded!.open.length + sharded!.closed + sharded!.filtered.length, ports.length);
  t.is(single!.open.length + single!.closed + single!.filtered.length, ports.length);
  t.is(progress, ports.length, 'every shard reported its progress');
});

test('cancelling stops the scan at once with the reason', async (t) => {
  const controller = new AbortController();
  const scan = connectScan([{ host: '127.0.0.1', ports: around([30000], 20000) }], { concurrency: 4, maxTimeoutMs: 2000, signal: controller.signal });
  setImmediate(() => controller.abort(new Error('cancelled')));
  await t.throwsAsync(scan, { message: 'cancelled' });
  const sharded = new AbortController();
  const shards = scanSharded([{ host: '127.0.0.1', ports: around([30000], 20000) }], { concurrency: 4, maxTimeoutMs: 2000, threads: 2, signal: sharded.signal });
  setTimeout(() => sharded.abort(new Error('cancelled')), 50);
  await t.throwsAsync(shards, { message: 'cancelled' });
});

/**
 * Runs a connect scan in a child process that has exactly `spare` file descriptors left:
 * its limit is lowered with prlimit, then it fills the rest with /dev/null.
 */
function scanUnderLimit(spare: number, concurrency: number, port: number): Promise<{ code: number | null; out: string }> {
  const script = `
    import { closeSync, openSync, readdirSync } from 'node:fs';
    import { connectScan } from './scanners/_lib/connect-engine.mjs';
    process.stdout.write('fds ' + readdirSync('/proc/self/fd').length + '\\n');
    process.stdin.once('data', async () => {
      const held = [];
      try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
      for (let i = 0; i < ${spare}; i++) closeSync(held.pop());
      try {
        const [r] = await connectScan([{ host: '127.0.0.1', ports: Array.from({ length: 600 }, (_, i) => ${port} - 300 + i) }], { concurrency: ${concurrency}, maxTimeoutMs: 3000 });
        console.log('ok ' + JSON.stringify(r.open.filter((p) => p === ${port})) + ' ' + (r.open.length + r.closed));
      } catch (err) { console.log('error ' + err.name + ' ' + err.code); }
      process.exit(0);
    });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /fds (\d+)\n/.exec(out);
      if (m && !out.includes('limited')) {
        out += 'limited\n';
        const limit = Number(m[1]) + 64;
        spawn(systemBinary('prlimit'), [`--nofile=${limit}:${limit}`, `--pid=${child.pid}`]).once('exit', () => child.stdin.write('go\n'));
      }
    });
    child.once('exit', (code) => resolve({ code, out }));
  });
}

test('running out of sockets slows the scan down; only a scan that cannot open one socket fails', async (t) => {
  const { server, port } = await listen();
  t.teardown(() => server.close());
  // 20 spare descriptors for 300 connects in flight: EMFILE, back off, finish with the right answer.
  const tight = await scanUnderLimit(20, 300, port);
  t.regex(tight.out, new RegExp(`ok \\[${port}\\] 600`), tight.out);
  // Not one descriptor to spare: never read as "closed", the scan fails with SocketExhaustedError.
  const none = await scanUnderLimit(0, 10, port);
  t.regex(none.out, /error SocketExhaustedError (EMFILE|ENFILE)/, none.out);
  t.true(new SocketExhaustedError('EMFILE').message.includes('lower the port scanner\'s concurrency'));
});
