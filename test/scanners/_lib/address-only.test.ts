import test from 'ava';
import { createServer } from 'node:net';
import { addressOnly } from '../../../scanners/_lib/address-only.mjs';
import { connectScan } from '../../../scanners/_lib/connect-engine.mjs';
import { exchange } from '../../../scanners/_lib/exchange.ts';
import { SocketSession } from '../../../scanners/_lib/socket-session.ts';
import { tcpConnect } from '../../../scanners/_lib/tcp-connect.ts';
import { tlsHandshake } from '../../../scanners/_lib/tls-handshake.ts';
import { rawProbe } from '../../../scanners/ssl/raw/raw-probe.ts';
import { zoneTransfer } from '../../../scanners/dns/dns-client.ts';
import type { CheckContext } from '../../../core/plugin-api/index.ts';

// Every raw socket the scanners open goes to an address: a name given to any of the
// connection helpers is refused before a socket exists, so the system never resolves it
// again behind the scope's back.

test('addresses pass (IPv6 unbracketed), names are refused', (t) => {
  t.is(addressOnly('127.0.0.1'), '127.0.0.1');
  t.is(addressOnly('[::1]'), '::1');
  t.throws(() => addressOnly('localhost'), { message: /raw connections go to addresses: resolve "localhost" with ctx.resolve first/ });
});

test('each connection helper refuses a name and opens nothing', async (t) => {
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const ctx = { timeoutMs: 1000, options: {}, signal: new AbortController().signal } as unknown as CheckContext;
  const refused = /raw connections go to addresses/;
  await t.throwsAsync(tcpConnect('localhost', port, { timeoutMs: 500 }), { message: refused });
  t.throws(() => exchange('localhost', port, { waitMs: 200 }), { message: refused });
  await t.throwsAsync(SocketSession.open('localhost', port, { timeoutMs: 500 }), { message: refused });
  await t.throwsAsync(tlsHandshake({ host: 'localhost', port, timeoutMs: 500 }), { message: refused });
  await t.throwsAsync(rawProbe({ host: 'localhost', port, timeoutMs: 500 }, Buffer.alloc(5)), { message: refused });
  t.throws(() => connectScan([{ host: 'localhost', ports: [port] }], { concurrency: 1, maxTimeoutMs: 500 }), { message: refused });
  t.throws(() => zoneTransfer(ctx, { host: 'localhost', port }, 'example.test'), { message: refused });
  t.is(connections, 0);
});
