import { Writable } from 'node:stream';
import test from 'ava';
import { loadConfig } from '../../../config/load-config.ts';
import { createApp } from '../../../core/app.ts';
import { routePlugins } from '../../../plugins/index.ts';
import { createLogger } from '../../../core/logger.ts';
import { TENANT_SCOPES } from '../../../core/domain/scopes.ts';
import { openSse } from '../../_helpers/receivers/sse-client.ts';
import { createTestDatabase } from '../../_helpers/harness/test-db.ts';

test('a ?token= on the stream never reaches the logs', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const database = await createTestDatabase();
  const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { database: { url: database.url }, log: { level: 'trace' } } });
  const app = await createApp(config, { routes: routePlugins, logger: createLogger('trace', sink) });
  try {
    await app.start();
    const tenant = await app.ctx.services.admin.createTenant({ name: 'log-check', tier: 'standard' });
    const { token } = await app.ctx.services.admin.createToken(tenant.id, { name: 't', scopes: TENANT_SCOPES, expiresAt: null });
    const client = await openSse(`${app.server.info.uri}/api/events/stream?events=system.alert&token=${token}`);
    t.is(client.statusCode, 200);
    await client.waitFor((m) => m.length >= 1);
    client.close();
    const bad = await openSse(`${app.server.info.uri}/api/events/stream?token=${token}x`);
    t.is(bad.statusCode, 401);
    await bad.body;
    await app.stop();
    const log = lines.join('');
    t.true(log.includes('/api/events/stream'), 'the requests were logged');
    t.false(log.includes(token), 'the token is not in the logs');
  } finally {
    await app.stop();
    await database.drop();
  }
});
