import test from 'ava';
import { parseCvss31 } from '../../../core/findings/cvss.ts';
import { exposureFindings, VECTORS } from '../../../scanners/_lib/risky-exposures.ts';
import type { ServiceInfo } from '../../../scanners/_lib/service-info.ts';

const redisOpen: ServiceInfo = { service: 'redis', banner: 'Redis 7.2.4', auth: 'none', details: { reply: '+PONG', redis_version: '7.2.4' } };
const postgres: ServiceInfo = { service: 'postgresql', banner: null, auth: 'unknown', details: {} };
const pgTrust: ServiceInfo = { ...postgres, auth: 'none', openAccounts: ['postgres', 'root'] };
const byLocation = (host: string, port: number, info: ServiceInfo) => new Map(exposureFindings(host, port, info).map((f) => [f.location!.split('#')[1] ?? 'port', f]));

test('Redis without auth: 9.8 from the internet, 8.8 from the internal network, 8.4 on this host only', (t) => {
  const expected: Array<[string, string, number, string]> = [
    ['8.8.4.4', 'AV:N', 9.8, 'reachable from the internet'],
    ['10.0.0.5', 'AV:A', 8.8, 'reachable from the internal network'],
    ['127.0.0.1', 'AV:L', 8.4, 'reachable on this host only'],
  ];
  for (const [host, av, score, phrase] of expected) {
    const f = byLocation(host, 6379, redisOpen).get('no-auth')!;
    t.true(f.cvss_vector.includes(`/${av}/`), `${host}: ${f.cvss_vector}`);
    t.is(parseCvss31(f.cvss_vector).score, score);
    t.is(f.title, `Redis accepts commands without authentication, ${phrase}`);
    t.is(f.evidence?.reachable, phrase);
  }
});

test('a database that needs a password is a medium exposure when reachable from networks, an info line on loopback', (t) => {
  const internet = byLocation('8.8.4.4', 5432, postgres).get('database')!;
  t.is(internet.title, 'PostgreSQL reachable from the internet');
  t.is(internet.cvss_vector, VECTORS.serviceReachable);
  const internal = byLocation('192.168.3.4', 5432, postgres).get('database')!;
  t.is(internal.title, 'PostgreSQL reachable from the internal network');
  t.is(parseCvss31(internal.cvss_vector).severity, 'medium');
  const local = byLocation('127.0.0.1', 5432, postgres).get('database')!;
  t.is(local.title, 'PostgreSQL reachable on this host only');
  t.is(parseCvss31(local.cvss_vector).severity, 'info');
  t.true(local.cvss_vector.startsWith('CVSS:3.1/AV:L/'));
});

test('password-less logins replace the reachability finding and name the accounts', (t) => {
  const f = byLocation('10.1.1.1', 5432, pgTrust);
  t.is(f.get('database'), undefined);
  t.is(f.get('no-password')!.title, 'PostgreSQL accepts password-less logins (postgres, root), reachable from the internal network');
  t.deepEqual(f.get('no-password')!.evidence?.open_accounts, ['postgres', 'root']);
  const anonymous = byLocation('127.0.0.1', 3306, { service: 'mysql', banner: '10.11', auth: 'none', details: {}, openAccounts: [''] });
  t.is(anonymous.get('no-password')!.title, 'MySQL/MariaDB accepts password-less logins ((anonymous)), reachable on this host only');
});

test('every vector parses, and the open-port line stays informational wherever it is', (t) => {
  for (const v of Object.values(VECTORS)) t.notThrows(() => parseCvss31(v), v);
  for (const host of ['127.0.0.1', '10.0.0.1', '8.8.8.8']) {
    const open = byLocation(host, 22, { service: 'ssh', banner: 'SSH-2.0-x', auth: 'unknown', details: {} }).get('port')!;
    t.is(parseCvss31(open.cvss_vector).severity, 'info');
    t.is(open.title, 'Open port 22/tcp (ssh)');
  }
  const ftp = byLocation('8.8.8.8', 21, { service: 'ftp', banner: '220 x', auth: 'unknown', details: {} }).get('cleartext')!;
  t.is(ftp.title, 'FTP service transmits credentials in clear text, reachable from the internet');
  t.is(ftp.cvss_vector, VECTORS.cleartext);
});
