import { connect } from 'node:net';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let port: number;

test.before(async () => {
  t0 = await createTestApp();
  await t0.app.start();
  port = Number(new URL(t0.server.info.uri).port);
});

test.after.always(async () => {
  await t0?.close();
});

/** Sends raw bytes over a real socket and returns everything the server wrote before closing. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
    socket.write(raw);
  });
}

test('a request head over the 16 KiB limit gets 431 in the one error shape, then the connection closes', async (t) => {
  const reply = await exchange(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
  const [head, body] = reply.split('\r\n\r\n');
  t.regex(head!, /^HTTP\/1\.1 431 /);
  t.regex(head!, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
  t.regex(head!, /\r\nconnection: close(\r\n|$)/i);
  const parsed = JSON.parse(body!) as { status: string; error: { code: string; message: string } };
  t.is(parsed.status, 'error');
  t.is(parsed.error.code, 'request_header_too_large');
  t.regex(parsed.error.message, /16 KiB/);
});

test('a malformed request line gets 400 in the one error shape', async (t) => {
  const reply = await exchange('NOT A REQUEST\r\n\r\n');
  const [head, body] = reply.split('\r\n\r\n');
  t.regex(head!, /^HTTP\/1\.1 400 /);
  const parsed = JSON.parse(body!) as { status: string; error: { code: string } };
  t.is(parsed.status, 'error');
  t.is(parsed.error.code, 'bad_request');
});

test('a normal request on the same server is unaffected', async (t) => {
  const reply = await exchange('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  t.regex(reply, /^HTTP\/1\.1 200 /);
});
