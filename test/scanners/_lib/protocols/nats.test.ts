import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { parseNatsInfo, probeNats } from '../../../../scanners/_lib/protocols/nats.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';
import { startNatsServer, type ServerProcess } from '../../../_helpers/targets/server-processes.ts';

// This machine's NATS (CI has it) and nats-server itself, started here with a user required.
const natsUp = await serviceAvailable('NATS', 'nats://127.0.0.1:4222');
let locked: ServerProcess | null = null;
let lockedError: string | null = null;
test.before(async () => {
  locked = await startNatsServer({ user: { name: 'app', password: 'a-test-only-password' } }).catch((err: Error) => {
    lockedError = err.message;
    return null;
  });
});
test.after.always(() => locked?.close());

const o = { timeoutMs: 3000, authChecks: true, loginUsers: [] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('INFO greetings are parsed; other text is not NATS', (t) => {
  t.deepEqual(parseNatsInfo('INFO {"version":"2.10.1","auth_required":true} \r\n'), { version: '2.10.1', auth_required: true });
  t.is(parseNatsInfo('INFO {broken\r\n'), null);
  t.is(parseNatsInfo('+OK\r\n'), null);
});

(natsUp ? test : test.skip)('NATS without authorization: admitted on CONNECT, anonymous access reported for this host only (AV:L)', async (t) => {
  const info = await probeNats('127.0.0.1', 4222, o);
  t.is(info?.service, 'nats');
  t.is(info?.auth, 'none');
  t.regex(info?.details.version ?? '', /^\d+\.\d+\.\d+/);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: '4222' }, timeoutMs: 20_000 });
  const finding = attempt.findings.find((f) => f.location === '127.0.0.1:4222/tcp#no-auth');
  t.is(finding?.title, 'NATS accepts clients without credentials, reachable on this host only');
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L');
});

test('nats-server with a user required: identified from INFO, Authorization Violation, no access finding', async (t) => {
  if (!locked) {
    // A binary that is not installed skips (CI's NATS may run elsewhere); one that fails to start is a failure there.
    if (process.env.RAMPART_REQUIRE_SERVICES && !/not installed/.test(lockedError ?? '')) return t.fail(`nats-server could not start: ${lockedError}`);
    console.warn(`nats-server test skipped: ${lockedError}`);
    return t.pass();
  }
  const info = await probeNats('127.0.0.1', locked.port, o);
  t.deepEqual([info?.service, info?.auth], ['nats', 'required']);
  t.regex(info?.details.reply ?? '', /Authorization Violation/);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(locked.port) }, timeoutMs: 20_000 });
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), ['NATS reachable on this host only', `Open port ${locked.port}/tcp (nats)`]);
  t.is(attempt.findings.find((f) => f.title === 'NATS reachable on this host only')!.cvss_vector, 'CVSS:3.1/AV:L/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N');
});
