import test from 'ava';
import { createServer } from 'node:net';
import type { ScannerCheck, ScannerPlugin, ScanTarget } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/plugins/run-check.ts';
import { targetScope } from '../../../core/plugins/target-scope.ts';

// The fixture third-party plugin is plain JS (typed by JSDoc) outside the source tree.
const FIXTURE = new URL('../../fixtures/third-party-scanner/index.js', import.meta.url).href;
const fixture = ((await import(FIXTURE)) as { default: ScannerPlugin }).default;

const target: ScanTarget = { assetId: 'ast_x', assetType: 'ip', name: '127.0.0.1', host: '127.0.0.1' };

function check(run: ScannerCheck['run']): ScannerCheck {
  return { id: 'kit:test', title: 'test', category: 'test', maxSeverity: 'low', run };
}

test('a real check against a loopback listener reports what it saw', async (t) => {
  const server = createServer((socket) => socket.end('SSH-2.0-OpenSSH_8.9p1 Ubuntu\r\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const attempt = await runCheck(fixture.checks[0] as ScannerCheck, { ...target, port }, { timeoutMs: 5_000 });
  t.is(attempt.status, 'completed');
  t.is(attempt.findings.length, 1);
  t.is(attempt.findings[0]!.evidence?.response_indicator, 'SSH-2.0-OpenSSH_8.9p1 Ubuntu');
  t.is(attempt.findings[0]!.location, `127.0.0.1:${port}`);
});

test('a throwing check is an attempt with an error, findings so far kept', async (t) => {
  const attempt = await runCheck(
    check(async (ctx) => {
      ctx.report({ title: 'partial', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', description: 'd' });
      ctx.log('WARN', 'about to fail');
      throw new Error('connection reset');
    }),
    target,
  );
  t.is(attempt.status, 'error');
  t.is(attempt.error, 'connection reset');
  t.is(attempt.findings.length, 1);
  t.is(attempt.logs[0]!.level, 'WARN');
});

test('a check that ignores its signal still ends at the deadline as a timeout', async (t) => {
  const attempt = await runCheck(check(() => new Promise(() => undefined)), target, { timeoutMs: 50 });
  t.is(attempt.status, 'timeout');
  t.regex(attempt.error!, /timed out after 50 ms/);
});

test('cancelling ends the attempt as cancelled and aborts the check signal', async (t) => {
  const controller = new AbortController();
  let sawAbort = false;
  const pending = runCheck(
    check((ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => ((sawAbort = true), reject(new Error('aborted')))))),
    target,
    { signal: controller.signal, timeoutMs: 10_000 },
  );
  controller.abort(new Error('scan cancelled'));
  const attempt = await pending;
  t.is(attempt.status, 'cancelled');
  t.true(sawAbort);
});

test('default scope: the host itself, a network CIDR, never the deny list', (t) => {
  const host = targetScope({ assetId: 'a', assetType: 'domain', name: 'example.com', host: 'example.com' });
  t.true(host('EXAMPLE.com'));
  t.false(host('evil.example.com'));
  const net = targetScope({ assetId: 'a', assetType: 'network', name: '127.0.0.0/30' }, ['127.0.0.2/32']);
  t.true(net('127.0.0.1'));
  t.false(net('127.0.0.2'));
  t.false(net('127.0.0.4'));
  t.false(net('localhost'));
  const v6 = targetScope({ assetId: 'a', assetType: 'ip', name: '::1', host: '::1' });
  t.true(v6('[::1]'));
});

test('services a check records are validated, deduplicated and returned with the attempt, also when it then fails', async (t) => {
  const attempt = await runCheck(
    check(async (ctx) => {
      ctx.addService({ host: '127.0.0.1', port: 8443, service: 'unknown', tls: true });
      ctx.addService({ host: '127.0.0.1', port: 8443, service: 'HTTPS', tls: true }); // more specific: replaces
      ctx.addService({ host: '127.0.0.1', port: 8443, service: 'unknown', tls: true }); // less specific: ignored
      ctx.addService({ host: '127.0.0.1', port: 70000, service: 'http', tls: false });
      ctx.addService({ host: '', port: 22, service: 'ssh', tls: false });
      ctx.addService({ host: '127.0.0.1', port: 22, service: 'ssh' } as never);
      throw new Error('broke after discovery');
    }),
    target,
  );
  t.is(attempt.status, 'error');
  t.deepEqual(attempt.services, [
    { host: '127.0.0.1', port: 8443, service: 'https', tls: true },
    { host: '127.0.0.1', port: 22, service: 'ssh', tls: false },
  ]);
  t.is(attempt.logs.filter((l) => l.level === 'WARN' && l.message.startsWith('service dropped')).length, 2);
});

test('ctx.services is what the engine passed (frozen), and absent when nothing produces services', async (t) => {
  let seen: unknown = 'unset';
  const probe = check(async (ctx) => {
    seen = ctx.services;
    if (ctx.services) t.throws(() => (ctx.services as unknown as unknown[]).push({}));
  });
  await runCheck(probe, target);
  t.is(seen, undefined);
  const given = [{ host: '127.0.0.1', port: 443, service: 'https', tls: true }];
  await runCheck(probe, target, { services: given });
  t.deepEqual(seen, given);
});
