import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { parseInfo, probeRedis, respFramer } from '../../../../scanners/_lib/protocols/redis.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';
import { startRedisServer, type ServerProcess } from '../../../_helpers/targets/server-processes.ts';

// This machine's Redis (no password, CI's too) and redis-server itself, started here with requirepass.
const redisUp = await serviceAvailable('Redis', 'redis://127.0.0.1:6379');
let locked: ServerProcess | null = null;
let lockedError = '';
test.before(async () => {
  if (redisUp) {
    locked = await startRedisServer({ password: 'a-test-only-password' }).catch((err: Error) => {
      lockedError = err.message;
      return null;
    });
  }
});
test.after.always(() => locked?.close());

const o = { timeoutMs: 3000, authChecks: true, loginUsers: [] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('RESP framing and INFO fields', (t) => {
  t.is(respFramer(Buffer.from('+PONG\r\n')), 7);
  t.is(respFramer(Buffer.from('$5\r\nhel')), 0);
  t.is(respFramer(Buffer.from('$5\r\nhello\r\n+x')), 11);
  t.deepEqual(parseInfo('# Server\r\nredis_version:7.2.4\r\nredis_mode:standalone\r\n'), { redis_version: '7.2.4', redis_mode: 'standalone' });
});

(redisUp ? test : test.skip)('Redis without a password: version read, critical access reported as reachable on this host only', async (t) => {
  const info = await probeRedis('127.0.0.1', 6379, o);
  t.is(info?.auth, 'none');
  t.regex(info?.details.redis_version ?? '', /^\d+\.\d+\.\d+/);
  t.is(info?.banner, `Redis ${info?.details.redis_version}`);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: '6379' }, timeoutMs: 20_000 });
  const finding = attempt.findings.find((f) => f.location === '127.0.0.1:6379/tcp#no-auth');
  t.is(finding?.title, 'Redis accepts commands without authentication, reachable on this host only');
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  t.is(finding?.evidence?.redis_version, info?.details.redis_version);
});

(redisUp ? test : test.skip)('Redis with requirepass: NOAUTH, identified, no access finding', async (t) => {
  if (!locked) {
    if (process.env.RAMPART_REQUIRE_SERVICES && !/not installed/.test(lockedError)) return t.fail(`redis-server could not start: ${lockedError}`);
    console.warn(`redis-server test skipped: ${lockedError}`);
    return t.pass();
  }
  const info = await probeRedis('127.0.0.1', locked!.port, o);
  t.deepEqual([info?.service, info?.auth], ['redis', 'required']);
  t.regex(info?.details.reply ?? '', /NOAUTH/);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(locked!.port) }, timeoutMs: 20_000 });
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), [`Open port ${locked!.port}/tcp (redis)`, 'Redis reachable on this host only']);
});
