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
