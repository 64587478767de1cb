import test from 'ava';
import { ConfigError, loadConfig } from '../../config/load-config.ts';

test('defaults: port 8080, embedded SQLite under ./data, no Redis', (t) => {
  const config = loadConfig({ env: {} });
  t.is(config.server.port, 8080);
  t.is(config.database.url, 'sqlite:./data/rampart.db');
  t.is(config.redis.url, null);
  t.is(config.auth.bootstrapAdminToken, null);
});

test('NODE_ENV file then well-known environment variables override', (t) => {
  const config = loadConfig({
    env: { NODE_ENV: 'test', PORT: '9090', HOST: '127.0.0.2', DATABASE_URL: 'mysql://root@127.0.0.1:3306/test', REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'debug' },
  });
  t.is(config.server.port, 9090);
  t.is(config.server.host, '127.0.0.2');
  t.is(config.database.url, 'mysql://root@127.0.0.1:3306/test');
  t.is(config.redis.url, 'redis://127.0.0.1:6379');
  t.is(config.log.level, 'debug');
  t.is(config.auth.scrypt.N, 1024, 'from config/test.json');
});

test('generic RAMPART__section__key overrides, JSON-parsed', (t) => {
  const config = loadConfig({ env: { RAMPART__http__maxPayloadBytes: '2048', RAMPART__plugins__builtin: '["port"]' } });
  t.is(config.http.maxPayloadBytes, 2048);
  t.deepEqual(config.plugins.builtin, ['port']);
});

test('a bad value stops start-up with a message naming the key and its variable', (t) => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /server\.port \(from PORT\)/],
    [{ PORT: '70000' }, /server\.port/],
    [{ DATABASE_URL: 'postgres://x' }, /database\.url \(from DATABASE_URL\)/],
    [{ LOG_LEVEL: 'loud' }, /log\.level \(from LOG_LEVEL\)/],
    [{ BOOTSTRAP_ADMIN_TOKEN: 'short' }, /auth\.bootstrapAdminToken/],
    [{ RAMPART__auth__scrypt__N: '1000' }, /auth\.scrypt\.N \(from RAMPART__auth__scrypt__N\)/],
  ];
  for (const [env, message] of bad) {
    const err = t.throws(() => loadConfig({ env }), { instanceOf: ConfigError }, JSON.stringify(env));
    t.regex(err!.message, message);
  }
});

test('an empty BOOTSTRAP_ADMIN_TOKEN means none', (t) => {
  t.is(loadConfig({ env: { BOOTSTRAP_ADMIN_TOKEN: '' } }).auth.bootstrapAdminToken, null);
});

test('RAMPART_PROFILE=trial: loopback only, its own database, this machine and unverified assets scannable, loopback webhooks over HTTP, a token file; the environment still wins', (t) => {
  const config = loadConfig({ env: { RAMPART_PROFILE: 'trial' } });
  t.is(config.profile, 'trial');
  t.is(config.server.host, '127.0.0.1');
  t.false(config.scans.denySelf);
  t.false(config.scans.requireVerifiedAsset);
  t.false(config.outbound.requireHttps);
  t.deepEqual(config.outbound.allowPrivateCidrs, ['127.0.0.0/8', '::1/128']);
  t.is(config.auth.bootstrapTokenFile, './data/admin-token');
  t.is(config.database.url, 'sqlite:./data/trial.db', 'apart from the real data');
  t.deepEqual(config.scans.denyNetworks, loadConfig({ env: {} }).scans.denyNetworks, 'the deny list stays');
  t.is(loadConfig({ env: { RAMPART_PROFILE: 'trial', HOST: '127.0.0.2' } }).server.host, '127.0.0.2');
  t.is(loadConfig({ env: {} }).profile, null);
  t.is(loadConfig({ env: { RAMPART__profile: 'trial' } }).profile, null, 'only RAMPART_PROFILE applies a profile');
});

test('an unknown profile stops start-up naming the ones there are', (t) => {
  const err = t.throws(() => loadConfig({ env: { RAMPART_PROFILE: 'production' } }), { instanceOf: ConfigError });
  t.is(err!.message, 'Unknown RAMPART_PROFILE "production": the profiles are trial.');
  t.throws(() => loadConfig({ env: { RAMPART_PROFILE: '../test' } }), { instanceOf: ConfigError });
});

test('executors.tenantShares: a tier\'s share from the environment, within (0, 1]; others keep their default', (t) => {
  const config = loadConfig({ env: { RAMPART__executors__tenantShares__standard: '1' } });
  t.deepEqual(config.executors.tenantShares, { standard: 1 });
  for (const bad of ['0', '1.5', '-0.5', 'half']) {
    const err = t.throws(() => loadConfig({ env: { RAMPART__executors__tenantShares__standard: bad } }), { instanceOf: ConfigError });
    t.regex(err!.message, /executors\.tenantShares\.standard \(from RAMPART__executors__tenantShares__standard\)/);
  }
  t.throws(() => loadConfig({ env: { RAMPART__executors__tenantShares__gold: '1' } }), { instanceOf: ConfigError, message: /tenantShares\.gold/ });
});
