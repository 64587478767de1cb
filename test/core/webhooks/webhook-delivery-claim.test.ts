import test from 'ava';
import { createDb, type Db } from '../../../core/db/create-db.ts';
import { migrateLatest } from '../../../core/db/migrate.ts';
import { newId } from '../../../core/ids.ts';
import { webhookDeliveryRepository as repo } from '../../../core/webhooks/webhook-delivery-repository.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

let database: TestDatabase;
const pools: Db[] = [];

test.before(async () => {
  database = await createTestDatabase();
  for (let i = 0; i < 4; i++) pools.push(createDb(database.url));
  await migrateLatest(pools[0]!);
});

test.after.always(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  await database.drop();
});

async function seed(db: Db, n: number, active = true): Promise<{ webhookId: string; ids: string[] }> {
  const now = Date.now();
  const tenantId = newId('ten');
  await db('tenants').insert({ id: tenantId, name: tenantId, tier: 'standard', created_at: now, updated_at: now });
  const webhookId = newId('whk');
  await db('webhooks').insert({ id: webhookId, tenant_id: tenantId, name: 'w', url: 'https://example.com/', events: '["*"]', filters: '{}', transform_options: '{}', header_names: '[]', active, created_at: now, updated_at: now });
  const ids = Array.from({ length: n }, () => newId('dlv'));
  await repo.insertMany(db, ids.map((id, i) => ({ id, tenantId, webhookId, eventId: i + 1, eventKind: 'asset.created', payload: '{}', attemptsLeft: 4, now: now - 1000 })));
  return { webhookId, ids };
}

test.serial('concurrent claims from several connections take disjoint rows and together take all due rows', async (t) => {
  const { ids } = await seed(pools[0]!, 40);
  const now = Date.now();
  const claims = await Promise.all(pools.flatMap((db, i) => [0, 1].map((j) => repo.claimDue(db, `worker-${i}-${j}`, now, 60_000, 8))));
  const claimed = claims.flat().map((r) => r.id);
  t.is(new Set(claimed).size, claimed.length, 'no row was leased twice');
  t.true(claimed.every((id) => ids.includes(id)));
  const rest = await repo.claimDue(pools[0]!, 'late', now, 60_000, 100);
  t.is(claimed.length + rest.length, 40, 'every due row was leased exactly once');
  t.is((await repo.claimDue(pools[1]!, 'again', now, 60_000, 100)).length, 0, 'leased rows are not claimable until the lease ends');
  t.is((await repo.claimDue(pools[1]!, 'after-expiry', now + 61_000, 60_000, 100)).length, 40, 'an expired lease (crashed worker) is claimed again');
});

test.serial('rows of inactive webhooks and rows not yet due are not claimed', async (t) => {
  const { webhookId } = await seed(pools[0]!, 3, false);
  const now = Date.now();
  t.is((await repo.claimDue(pools[0]!, 'x1', now, 60_000, 100)).filter((r) => r.webhook_id === webhookId).length, 0);
  await pools[0]!('webhooks').where({ id: webhookId }).update({ active: true });
  await pools[0]!('webhook_deliveries').where({ webhook_id: webhookId }).update({ next_attempt_at: now + 10_000 });
  t.is((await repo.claimDue(pools[0]!, 'x2', now, 60_000, 100)).filter((r) => r.webhook_id === webhookId).length, 0);
  t.is((await repo.claimDue(pools[0]!, 'x3', now + 10_000, 60_000, 100)).filter((r) => r.webhook_id === webhookId).length, 3);
});

test.serial('finishing an attempt needs the lease: a worker that lost it writes nothing', async (t) => {
  const { ids } = await seed(pools[0]!, 1);
  const now = Date.now();
  await repo.claimDue(pools[0]!, 'first', now, 1000, 10);
  const second = await repo.claimDue(pools[1]!, 'second', now + 2000, 60_000, 10);
  t.true(second.some((r) => r.id === ids[0]));
  t.false(await repo.finishAttempt(pools[0]!, ids[0]!, 'first', { status: 'delivered' }));
  t.true(await repo.finishAttempt(pools[1]!, ids[0]!, 'second', { status: 'delivered' }));
});
