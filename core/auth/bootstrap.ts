import type { Db } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import type { Logger } from '../logger.ts';
import { tenantRepository } from './tenant-repository.ts';
import type { AdminService } from './admin-service.ts';
import { SCOPES } from '../domain/scopes.ts';

export const DEFAULT_TENANT = 'default';

/**
 * First start with an empty database: creates tenant `default` and an admin token
 * holding every scope. The token is `BOOTSTRAP_ADMIN_TOKEN` when configured (and then
 * never logged), otherwise a random one written once to the log, or handed to
 * `showGenerated` (the start-up banner shows it instead). Later starts do nothing, even
 * with a different BOOTSTRAP_ADMIN_TOKEN.
 */
export async function bootstrap(db: Db, admin: AdminService, configuredToken: string | null, logger: Logger, showGenerated?: (token: string) => void): Promise<void> {
  if ((await tenantRepository.count(db)) > 0) return;
  let token: string;
  try {
    token = await db.transaction(async (trx) => {
      const tenant = await admin.createTenant({ name: DEFAULT_TENANT, tier: 'enterprise' }, trx);
      const issued = await admin.createToken(
        tenant.id,
        { name: 'bootstrap-admin', kind: 'bootstrap', scopes: [...SCOPES], expiresAt: null, value: configuredToken ?? undefined },
        trx,
      );
      return issued.token;
    });
  } catch (err) {
    // Another process bootstrapped at the same moment.
    if (isUniqueViolation(err) || (err as { code?: string }).code === 'tenant_exists') return;
    throw err;
  }
  if (configuredToken) {
    logger.info('Created tenant "default" and the admin token from BOOTSTRAP_ADMIN_TOKEN.');
  } else if (showGenerated) {
    logger.warn('Created tenant "default" and a random admin token; it is shown once, in the start-up banner.');
    showGenerated(token);
  } else {
    logger.warn(`Created tenant "default". Admin token (shown once, store it now): ${token}`);
  }
}
