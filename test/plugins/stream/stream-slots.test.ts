import { connect, type Socket } from 'node:net';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { openSse, type SseClient } from '../../_helpers/receivers/sse-client.ts';

let t0: TestApp;
let base: string;

test.before(async () => {
  t0 = await createTestApp();
  await t0.app.start();
  base = t0.server.info.uri;
});

test.after.always(async () => {
  await t0?.close();
});

/** Resolves once the server side has released the slots (its disconnect handling is asynchronous). */
async function slotsHeld(n: number): Promise<void> {
  while (t0.ctx.rateLimiter.liveSlots !== n) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A raw client that reads the stream's first bytes; the caller then cuts it off with a TCP reset. */
async function rawStream(token: string): Promise<Socket> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(`GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
  const head = await new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
  if (!head.startsWith('HTTP/1.1 200')) throw new Error(head.split('\r\n')[0]);
  return socket;
}

const open = (token: string) => openSse(`${base}/api/events/stream`, { authorization: `Bearer ${token}` });

test.serial('a Standard tenant gets 5 concurrent streams; the 6th is 429; a closed one frees its slot at once', async (t) => {
  const a = await t0.tenant({ tier: 'standard' });
  const clients: SseClient[] = [];
  for (let i = 0; i < 5; i++) {
    const client = await open(a.token);
    t.is(client.statusCode, 200);
    clients.push(client);
  }
  await slotsHeld(5);
  const refused = await open(a.token);
  t.is(refused.statusCode, 429);
  const body = JSON.parse(await (refused as SseClient & { body: Promise<string> }).body);
  t.is(body.error.code, 'rate_limited');
  t.true(Number.isInteger(body.error.retry_after) && body.error.retry_after >= 1);
  t.is(refused.headers['retry-after'], String(body.error.retry_after));
  t.is(refused.headers['x-ratelimit-limit'], '5');
  t.is(refused.headers['x-ratelimit-remaining'], '0');
  t.is(refused.headers['ratelimit-policy'], '"streams";q=5;qu="concurrent-requests"');
  const other = await t0.tenant({ tier: 'standard' });
  const otherClient = await open(other.token);
  t.is(otherClient.statusCode, 200, 'per tenant');
  otherClient.close();
  await slotsHeld(5);

  clients.shift()!.close();
  await slotsHeld(4);
  const again = await open(a.token);
  t.is(again.statusCode, 200);
  for (const client of [...clients, again]) client.close();
  await slotsHeld(0);
});

test.serial('a client that vanishes (TCP reset, no HTTP-level close) frees its slot too', async (t) => {
  const a = await t0.tenant({ tier: 'standard' });
  const clients: SseClient[] = [];
  for (let i = 0; i < 4; i++) clients.push(await open(a.token));
  const raw = await rawStream(a.token);
  await slotsHeld(5);
  t.is((await open(a.token)).statusCode, 429);
  // As a killed client process or a dropped connection: RST, no FIN, no HTTP end.
  raw.resetAndDestroy();
  await slotsHeld(4);
  const next = await open(a.token);
  t.is(next.statusCode, 200);
  for (const client of [...clients, next]) client.close();
  await slotsHeld(0);
});

test.serial('Premium gets 20 concurrent streams', async (t) => {
  const p = await t0.tenant({ tier: 'premium' });
  const clients = await Promise.all(Array.from({ length: 20 }, () => open(p.token)));
  t.true(clients.every((c) => c.statusCode === 200));
  t.is((await open(p.token)).statusCode, 429);
  for (const client of clients) client.close();
  await slotsHeld(0);
});
