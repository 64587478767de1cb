import type { Db } from '../db/create-db.ts';
import { changeClock } from '../db/change-clock.ts';
import { NotFoundError } from '../errors.ts';
import { tenantRepository } from './tenant-repository.ts';

export interface SignInSettings {
  tenant_id: string;
  password_login: boolean;
  /** Login tokens of local (password) users revoked by this change. */
  revoked_sessions?: number;
}

/**
 * A tenant's sign-in switches (platform administrators). Turning password sign-in off
 * also ends the password sessions in progress: their login tokens are revoked. API tokens
 * and single sign-on sessions are untouched.
 */
export class SignInSettingsService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async get(tenantId: string): Promise<SignInSettings> {
    if (!(await tenantRepository.findById(this.#db, tenantId))) throw new NotFoundError('Tenant');
    return { tenant_id: tenantId, password_login: await tenantRepository.passwordLoginAllowed(this.#db, tenantId) };
  }

  async set(tenantId: string, passwordLogin: boolean): Promise<SignInSettings> {
    if (!(await tenantRepository.findById(this.#db, tenantId))) throw new NotFoundError('Tenant');
    const now = Date.now();
    return this.#db.transaction(async (trx) => {
      await tenantRepository.setPasswordLogin(trx, tenantId, passwordLogin, now);
      let revoked = 0;
      if (!passwordLogin) {
        revoked = await tenantRepository.revokePasswordSessions(trx, tenantId, now);
        if (revoked) await changeClock.markChanged(trx, tenantId, 'tokens', now);
      }
      return { tenant_id: tenantId, password_login: passwordLogin, revoked_sessions: revoked };
    });
  }
}
