import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { handshakeResponse, parseHandshake, tryMysqlLogin } from '../../../../scanners/_lib/protocols/mysql.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';
import { startLockedMysql } from '../../../_helpers/targets/locked-databases.ts';

// This machine's MariaDB lets root in from loopback without a password (CI's too).
const mariaUp = await serviceAvailable('MariaDB', 'mysql://127.0.0.1:3306');

const o = { timeoutMs: 3000, authChecks: true, loginUsers: ['root', 'admin', ''] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('handshake parsing and an empty-password response', (t) => {
  const payload = Buffer.concat([Buffer.from([0x0a]), Buffer.from('8.0.36\0'), Buffer.alloc(4), Buffer.alloc(8, 1), Buffer.from([0]), Buffer.from([0xff, 0xff, 45, 2, 0, 0xff, 0xff, 21]), Buffer.alloc(10), Buffer.alloc(13, 2), Buffer.from('caching_sha2_password\0')]);
  const packet = Buffer.concat([Buffer.from([payload.length, 0, 0, 0]), payload]);
  t.deepEqual(parseHandshake(packet), { version: '8.0.36', plugin: 'caching_sha2_password' });
  const response = handshakeResponse('root', 'caching_sha2_password');
  t.is(response[3], 1, 'sequence 1');
  const userEnd = response.indexOf(0, 4 + 32);
  t.is(response.subarray(4 + 32, userEnd).toString(), 'root');
  t.is(response[userEnd + 1], 0, 'empty auth response');
});

(mariaUp ? test : test.skip)('MariaDB: root without a password is found, a missing account is refused, findings for this host only', async (t) => {
  const refused = await tryMysqlLogin('127.0.0.1', 3306, 'admin', o);
  t.is(refused.outcome, 'refused');
  t.regex(refused.reason, /^(1045|1698) /);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: '3306', login_users: 'root,admin,' }, timeoutMs: 20_000 });
  const finding = attempt.findings.find((f) => f.location === '127.0.0.1:3306/tcp#no-password');
  t.is(finding?.title, 'MySQL/MariaDB accepts password-less logins (root), reachable on this host only');
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  t.regex(String(finding?.evidence?.logins_tried), /root: in; admin: (1045|1698) .*; \(anonymous\): /);
});

test('MariaDB whose accounts have passwords: refused, no password sent, no access finding', async (t) => {
  const db = await startLockedMysql();
  t.teardown(() => db.close());
  const login = await tryMysqlLogin('127.0.0.1', db.port, 'root', o);
  t.is(login.outcome, 'refused');
  t.regex(login.reason, /^1045 Access denied for user 'root'/);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(db.port), login_users: 'root,' }, timeoutMs: 20_000 });
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), [`MySQL/MariaDB reachable on this host only`, `Open port ${db.port}/tcp (mysql)`]);
  t.deepEqual(db.attempts.sort(), ['', 'root', 'root']);
  t.is(db.passwordsSent, 0);
});
