import test from 'ava';
import { generateToken } from '../../core/auth/token-codec.ts';
import { freePort, startService } from '../_helpers/harness/spawn-service.ts';
import { createTestDatabase } from '../_helpers/harness/test-db.ts';

// Boots the real entry point (`npm start`) over a real socket, as an operator would.

test('starts, serves health, authenticates with BOOTSTRAP_ADMIN_TOKEN, stops on SIGTERM', async (t) => {
  t.timeout(180_000);
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const port = await freePort();
  const token = generateToken();
  const service = startService({ DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_ADMIN_TOKEN: token, LOG_LEVEL: 'info' });
  t.teardown(() => void service.child.kill('SIGKILL'));
  await service.waitFor(/Rampart listening/, 150_000);

  const health = await fetch(`http://127.0.0.1:${port}/api/health`);
  t.is(health.status, 200);
  t.is(((await health.json()) as { data: { status: string } }).data.status, 'ok');
  const me = await fetch(`http://127.0.0.1:${port}/api/user/me`, { headers: { authorization: `Bearer ${token}` } });
  t.is(me.status, 200);
  const body = (await me.json()) as { data: { tenant: { name: string }; token: { scopes: string[] } } };
  t.is(body.data.tenant.name, 'default');
  t.true(body.data.token.scopes.includes('admin'));
  const denied = await fetch(`http://127.0.0.1:${port}/api/user/me`, { headers: { authorization: 'Bearer rmp_wrong' } });
  t.is(denied.status, 401);

  service.child.kill('SIGTERM');
  t.is(await service.exited, 0);
  t.regex(service.output(), /shutting down/);
  t.false(service.output().includes(token), 'a configured token is never logged');
  t.false(service.output().includes('authorization'), 'headers are not logged');
});

test('without BOOTSTRAP_ADMIN_TOKEN a random admin token is printed once and works', async (t) => {
  t.timeout(180_000);
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const port = await freePort();
  const service = startService({ DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  t.teardown(() => void service.child.kill('SIGKILL'));
  await service.waitFor(/Rampart listening/, 150_000);
  // The banner (standard error) follows the listening log line (standard output): wait for its token line and the line after it.
  await service.waitFor(/shown once: store it now/, 30_000);
  const tokens = service.output().match(/rmp_[A-Za-z0-9_-]{43}/g) ?? [];
  t.is(tokens.length, 1);
  const me = await fetch(`http://127.0.0.1:${port}/api/user/me`, { headers: { authorization: `Bearer ${tokens[0]}` } });
  t.is(me.status, 200);
  service.child.kill('SIGINT');
  t.is(await service.exited, 0);
});

test('a bad configuration value stops start-up naming the key', async (t) => {
  t.timeout(180_000);
  const service = startService({ PORT: 'eighty', DATABASE_URL: 'sqlite::memory:' });
  t.is(await service.exited, 1);
  t.regex(service.output(), /Invalid configuration: server\.port \(from PORT\)/);
});

test('a plugin that cannot load stops start-up naming it', async (t) => {
  t.timeout(180_000);
  const port = await freePort();
  const service = startService({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: 'sqlite::memory:',
    RAMPART__plugins__external: JSON.stringify([{ module: 'rampart-plugin-that-does-not-exist', capabilities: [] }]),
  });
  t.is(await service.exited, 1);
  t.regex(service.output(), /Cannot find plugin \\"rampart-plugin-that-does-not-exist\\"/);
});
