import type Joi from 'joi';
import { ConfigError, loadConfig } from '../../config/load-config.ts';
import { AdminService } from '../../core/auth/admin-service.ts';
import { PasswordHasher } from '../../core/auth/password-hasher.ts';
import { createDb } from '../../core/db/create-db.ts';
import { pendingMigrations } from './migrate-command.ts';
import { RampartError } from '../../core/errors.ts';
import type { Scope, Tier } from '../../core/domain/scopes.ts';
import { createTenantPayload, createTokenPayload, createUserPayload, tenantId, tokenId, updateTenantPayload, userId } from '../../plugins/admin/admin-schemas.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { AdminBackend, ListResult, Page } from './admin-backend.ts';

/** The API's own payload rules, so --direct accepts exactly what the routes accept. */
function valid<T>(schema: Joi.Schema, value: unknown, what: string): T {
  const { error, value: out } = schema.validate(value, { abortEarly: true });
  if (error) throw new CliError(`Invalid ${what}: ${error.message}.`, EXIT.refused);
  return out as T;
}

const listOf = (rows: unknown[], total: number, page: Page): ListResult => ({ data: rows, meta: { total, page: page.page, per_page: page.perPage, total_pages: Math.ceil(total / page.perPage) } });

/**
 * Admin straight on the database the configuration names (config/, DATABASE_URL, RAMPART__…):
 * for bootstrap and recovery, when no admin token exists or the API is down. It needs the
 * migrations applied (`rampart migrate`) and the same access to the database as the server.
 */
export async function directAdminBackend(env: NodeJS.ProcessEnv): Promise<AdminBackend> {
  let config;
  try {
    config = loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.unavailable);
    throw err;
  }
  const db = createDb(config.database.url);
  try {
    const pending = await pendingMigrations(db);
    if (pending.length) throw new CliError(`The database needs ${pending.length} migration(s) first: run \`rampart migrate\`.`, EXIT.unavailable);
  } catch (err) {
    await db.destroy();
    if (err instanceof CliError) throw err;
    throw new CliError(`Cannot use the database: ${(err as Error).message}`, EXIT.unavailable);
  }
  const admin = new AdminService(db, new PasswordHasher(config.auth));
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof RampartError) throw new CliError(`${err.message} (${err.code})`, err.statusCode >= 500 ? EXIT.serverError : EXIT.refused);
      throw err;
    }
  };
  const id = (schema: Joi.Schema, value: string, what: string) => valid<string>(schema, value, what);
  return {
    listTenants: (page) => run(async () => {
      const r = await admin.listTenants(page);
      return listOf(r.rows, r.total, page);
    }),
    createTenant: (body) => run(() => admin.createTenant(valid<{ name: string; tier: Tier }>(createTenantPayload, body, 'tenant'))),
    getTenant: (tid) => run(() => admin.getTenant(id(tenantId, tid, 'tenant id'))),
    updateTenant: (tid, body) => run(() => admin.updateTenant(id(tenantId, tid, 'tenant id'), valid(updateTenantPayload, body, 'change'))),
    listUsers: (tid, page) => run(async () => {
      const r = await admin.listUsers(id(tenantId, tid, 'tenant id'), page);
      return listOf(r.rows, r.total, page);
    }),
    createUser: (tid, body) => run(() => admin.createUser(id(tenantId, tid, 'tenant id'), valid<{ email: string; name: string; password: string; scopes: Scope[] }>(createUserPayload, body, 'user'))),
    deleteUser: (uid) => run(() => admin.deleteUser(id(userId, uid, 'user id'))),
    listTokens: (tid, page, includeRevoked) => run(async () => {
      const r = await admin.listTokens(id(tenantId, tid, 'tenant id'), page, includeRevoked);
      return listOf(r.rows, r.total, page);
    }),
    createToken: (tid, body) => run(async () => {
      const t = valid<{ name: string; scopes: Scope[]; expires_in_seconds?: number; user_id?: string }>(createTokenPayload, body, 'token');
      const tenant = await admin.getTenant(id(tenantId, tid, 'tenant id'));
      const issued = await admin.createToken(tenant.id, { name: t.name, scopes: t.scopes, expiresAt: t.expires_in_seconds ? Date.now() + t.expires_in_seconds * 1000 : null, userId: t.user_id ?? null });
      return { ...issued.record, token: issued.token };
    }),
    revokeToken: (tid) => run(() => admin.revokeToken(id(tokenId, tid, 'token id'))),
    close: () => db.destroy(),
  };
}
