import test from 'ava';
import { AdminService } from '../../../core/auth/admin-service.ts';
import { PasswordHasher } from '../../../core/auth/password-hasher.ts';
import { changeClock } from '../../../core/db/change-clock.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let admin: AdminService;
test.before(async () => {
  t0 = await createTestApp();
  admin = new AdminService(t0.ctx.db, new PasswordHasher(t0.config.auth));
});
test.after.always(async () => t0?.close());

const UNKNOWN = 'ten_01J00000000000000000000000';

test('an unknown tenant has no Last-Modified for itself, its users or its tokens', async (t) => {
  t.is(await admin.tenantUpdatedAt(UNKNOWN), null);
  t.is(await admin.usersChangedAt(UNKNOWN), null);
  t.is(await admin.tokensChangedAt(UNKNOWN), null);
});

test('a tenant: its updated_at; a user list that never changed is 0, then the users clock', async (t) => {
  const tenant = await admin.createTenant({ name: `changed-at-${Math.random()}`, tier: 'standard' });
  t.is(await admin.tenantUpdatedAt(tenant.id), Date.parse(tenant.updated_at));
  t.true((await admin.tenantsChangedAt())! >= Date.parse(tenant.updated_at));
  t.is(await admin.usersChangedAt(tenant.id), 0);
  await changeClock.markChanged(t0.ctx.db, tenant.id, 'users', 1_700_000_000_000);
  t.is(await admin.usersChangedAt(tenant.id), 1_700_000_000_000);
});

test('a token list: its clock moves when a token is issued and when one is revoked', async (t) => {
  const tenant = await admin.createTenant({ name: `tokens-at-${Math.random()}`, tier: 'standard' });
  t.is(await admin.tokensChangedAt(tenant.id), 0);
  const before = Date.now();
  const issued = await admin.createToken(tenant.id, { name: 'ci', scopes: ['assets:read'], expiresAt: null });
  const afterIssue = (await admin.tokensChangedAt(tenant.id))!;
  t.true(afterIssue >= before);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await admin.revokeToken(issued.record.id);
  t.true((await admin.tokensChangedAt(tenant.id))! > afterIssue);
});
