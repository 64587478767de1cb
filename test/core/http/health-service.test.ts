import test from 'ava';
import { createDb, dialectOf } from '../../../core/db/create-db.ts';
import { HealthService } from '../../../core/http/health-service.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

test('database(): the engine once the database answers', async (t) => {
  t.deepEqual(await new HealthService(t0.ctx.db).database(), { engine: dialectOf(t0.ctx.db) });
});

test('database(): rejects when the database does not answer', async (t) => {
  const db = createDb(t0.config.database.url);
  await db.destroy();
  await t.throwsAsync(new HealthService(db).database());
});
