import test from 'ava';
import { loadConfig } from '../../config/load-config.ts';
import { describeDatabase, localUrl, startupBanner, type BannerFacts } from '../../core/startup-banner.ts';

const facts = (over: Partial<BannerFacts> = {}, env: Record<string, string> = {}): BannerFacts => ({
  version: '0.1.0',
  roles: ['api', 'worker', 'scheduler'],
  config: loadConfig({ env }),
  listening: { host: '0.0.0.0', port: 8080 },
  adminToken: null,
  adminTokenFile: null,
  compiled: true,
  typescriptPlugins: [],
  hostname: 'scanner-1',
  ...over,
});

test('a wildcard bind is shown as the loopback URL to open, with the host name for other machines; never 0.0.0.0', (t) => {
  const banner = startupBanner(facts());
  t.notRegex(banner, /http:\/\/0\.0\.0\.0/);
  t.regex(banner, /URL +http:\/\/127\.0\.0\.1:8080 \(listening on every interface; from other machines http:\/\/scanner-1:8080\)/);
  t.regex(banner, /API docs +http:\/\/127\.0\.0\.1:8080\/docs\n/);
  t.regex(banner, /Console +http:\/\/127\.0\.0\.1:8080\/console\n/);
  t.regex(banner, /Health +http:\/\/127\.0\.0\.1:8080\/api\/health\/ready\n/);
  t.regex(banner, /Roles +api, worker, scheduler\n/);
  t.regex(banner, /Rampart 0\.1\.0 is running \(compiled JavaScript from dist\/\)/);
  t.is(localUrl({ host: '::', port: 9000 }), 'http://127.0.0.1:9000');
  t.is(localUrl({ host: '::1', port: 9000 }), 'http://[::1]:9000');
  t.is(localUrl({ host: 'rampart.internal', port: 443 }), 'http://rampart.internal:443');
});

test('the database is named without its password or query; SQLite by its full path; Redis without credentials', (t) => {
  t.is(describeDatabase('mysql://rampart:s3cret-pass@db.internal:3306/rampart?ssl=true&password=x'), 'mysql://rampart@db.internal:3306/rampart');
  t.is(describeDatabase('mariadb://root@127.0.0.1:3306/test'), 'mariadb://root@127.0.0.1:3306/test');
  t.regex(describeDatabase('sqlite:./data/rampart.db'), /^sqlite:\/.+\/data\/rampart\.db$/);
  t.is(describeDatabase('sqlite::memory:'), 'sqlite (in memory)');
  const banner = startupBanner(facts({}, { DATABASE_URL: 'mysql://rampart:s3cret-pass@db.internal:3306/rampart', REDIS_URL: 'redis://:redis-pass@cache:6379/2' }));
  t.notRegex(banner, /s3cret-pass|redis-pass/);
  t.regex(banner, /Database +mysql:\/\/rampart@db\.internal:3306\/rampart\n/);
  t.regex(banner, /Redis +redis:\/\/cache:6379\/2\n/);
  t.regex(startupBanner(facts()), /Redis +none: each process keeps its own rate-limit buckets/);
});

test('a generated admin token is shown once, with the file it was written to; a configured one never', (t) => {
  const token = `rmp_${'a'.repeat(43)}`;
  const banner = startupBanner(facts({ adminToken: token, adminTokenFile: '/srv/rampart/data/admin-token' }));
  t.is(banner.split(token).length - 1, 1);
  t.regex(banner, /shown once: store it now \(also written to \/srv\/rampart\/data\/admin-token, readable only by you\)/);
  t.notRegex(startupBanner(facts()), /Admin token/);
});

test('one warning per safety switch that is off, and the trial profile named', (t) => {
  t.notRegex(startupBanner(facts()), /WARNING/);
  const banner = startupBanner(facts({}, { RAMPART_PROFILE: 'trial' }));
  t.regex(banner, /Profile +trial: for trying Rampart on this machine, never for production/);
  t.deepEqual(banner.match(/WARNING +\S+ is/g)?.map((w) => w.split(/\s+/)[1]), ['scans.denySelf', 'scans.requireVerifiedAsset', 'outbound.requireHttps', 'outbound.allowPrivateCidrs']);
});

test('a process without the api role says it serves no HTTP; TypeScript plugins in the compiled start are noted', (t) => {
  const banner = startupBanner(facts({ roles: ['worker'], listening: null, typescriptPlugins: ['acme'] }));
  t.regex(banner, /URL +none: this process does not serve HTTP \(no api role\)/);
  t.notRegex(banner, /\/docs/);
  t.regex(banner, /plugin acme is TypeScript, transpiled as it loads; ship it as JavaScript for production/);
  t.regex(startupBanner(facts({ compiled: false })), /TypeScript sources through tsx/);
});
