import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { errorFields, startupMessage, tryPgLogin } from '../../../../scanners/_lib/protocols/postgresql.ts';
import { probeService } from '../../../../scanners/_lib/service-probes.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';
import { startLockedPostgres } from '../../../_helpers/targets/locked-databases.ts';

// This machine's PostgreSQL trusts loopback logins (CI's too: users root and postgres).
const pgUp = await serviceAvailable('PostgreSQL', 'postgres://127.0.0.1:5432');

const o = { timeoutMs: 3000, authChecks: true, loginUsers: ['root', 'postgres', 'admin'] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('StartupMessage and ErrorResponse fields', (t) => {
  const m = startupMessage('postgres');
  t.is(m.readUInt32BE(0), m.length);
  t.is(m.readUInt32BE(4), 196608, 'protocol 3.0');
  t.true(m.includes(Buffer.from('user\0postgres\0database\0postgres\0')));
  const e = Buffer.concat([Buffer.from('E'), Buffer.from([0, 0, 0, 0]), Buffer.from('SFATAL\0C28000\0Mrole "admin" does not exist\0\0')]);
  t.deepEqual(errorFields(e), { S: 'FATAL', C: '28000', M: 'role "admin" does not exist' });
});

(pgUp ? test : test.skip)('trusting PostgreSQL: password-less logins found, missing roles refused, findings for this host only', async (t) => {
  t.is((await tryPgLogin('127.0.0.1', 5432, 'admin', o)).outcome, 'refused');
  const info = await probeService('127.0.0.1', 5432, o);
  t.is(info.service, 'postgresql');
  t.true(info.openAccounts!.includes('postgres') || info.openAccounts!.includes('root'), JSON.stringify(info));
  t.false(info.openAccounts!.includes('admin'));
  t.regex(info.details.version ?? '', /^\d+/);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: '5432', login_users: 'root,postgres,admin' }, timeoutMs: 20_000 });
  const finding = attempt.findings.find((f) => f.location === '127.0.0.1:5432/tcp#no-password');
  t.regex(finding?.title ?? '', /^PostgreSQL accepts password-less logins \((root|postgres)(, (root|postgres))?\), reachable on this host only$/);
  t.is(finding?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  t.is(attempt.findings.find((f) => f.location === '127.0.0.1:5432/tcp#database'), undefined, 'the access finding replaces the reachability one');
});

test('PostgreSQL that asks for a password: never sent one, no finding, still identified', async (t) => {
  const db = await startLockedPostgres();
  t.teardown(() => db.close());
  const login = await tryPgLogin('127.0.0.1', db.port, 'postgres', o);
  t.deepEqual([login.outcome, login.reason], ['credential', 'SASL (SCRAM)']);
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(db.port), login_users: 'postgres,root' }, timeoutMs: 20_000 });
  t.deepEqual(attempt.findings.map((f) => f.title).sort(), [`Open port ${db.port}/tcp (postgresql)`, 'PostgreSQL reachable on this host only']);
  t.deepEqual(db.attempts.sort(), ['postgres', 'postgres', 'root']);
  t.is(db.passwordsSent, 0);
});

test('auth_checks off: PostgreSQL is identified without any login', async (t) => {
  const db = await startLockedPostgres();
  t.teardown(() => db.close());
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: String(db.port), auth_checks: false }, timeoutMs: 20_000 });
  t.true(attempt.findings.some((f) => f.title === `Open port ${db.port}/tcp (postgresql)`));
  t.deepEqual(db.attempts, []);
});
