import type { Queryable } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { ROLE_SCOPES, type UserRole } from '../domain/roles.ts';
import type { Scope } from '../domain/scopes.ts';
import { newId } from '../ids.ts';
import { SsoRefusal } from './sso-refusal.ts';
import { tokenRepository } from '../auth/token-repository.ts';
import { userRepository } from '../auth/user-repository.ts';

// Never a valid PHC string: password verification of an SSO user's row always fails.
const NO_PASSWORD = '!sso';

export interface SsoUserRequest {
  provider: string;
  subject: string;
  email: string | null;
  name: string | null;
  tenantId: string;
  role: UserRole;
  now: number;
}

/**
 * The local user behind a provider's identity (provider, sub): made at its first sign-in,
 * its scopes set to its role's at every sign-in. Tokens the user holds with scopes the
 * role no longer gives are revoked then (a personal token never outlives a demotion).
 */
export const ssoIdentityRepository = {
  async upsert(trx: Queryable, r: SsoUserRequest): Promise<{ userId: string; scopes: Scope[] }> {
    const scopes = ROLE_SCOPES[r.role];
    const identity = (await trx('sso_identities').where({ provider: r.provider, subject: r.subject }).first()) as { id: string; user_id: string; tenant_id: string } | undefined;
    if (identity) {
      if (identity.tenant_id !== r.tenantId) throw new SsoRefusal('sso_tenant_changed', `identity ${r.provider}/${r.subject} belongs to tenant ${identity.tenant_id}, its groups now map to ${r.tenantId}`);
      // A user an administrator disabled stays disabled: the provider's say-so does not undo that.
      const user = await userRepository.findById(trx, identity.user_id);
      if (user?.disabled) throw new SsoRefusal('sso_user_disabled', `user ${identity.user_id} is disabled in Rampart`);
      await userRepository.setScopes(trx, identity.user_id, scopes, r.now, r.name);
      await trx('sso_identities').where({ id: identity.id }).update({ role: r.role, last_sign_in_at: r.now });
      await this.revokeBeyond(trx, identity.user_id, r.tenantId, scopes, r.now);
      return { userId: identity.user_id, scopes };
    }
    const userId = newId('usr', r.now);
    // Emails are the login of local accounts and unique; an identity without one gets a placeholder that cannot be typed as an email.
    const email = (r.email ?? `${r.subject}@${r.provider}.sso.invalid`).toLowerCase().slice(0, 254);
    try {
      await userRepository.insert(trx, { id: userId, tenantId: r.tenantId, email, name: (r.name ?? r.email ?? r.subject).slice(0, 200), passwordHash: NO_PASSWORD, scopes, now: r.now });
    } catch (err) {
      if (isUniqueViolation(err)) throw new SsoRefusal('sso_email_taken', `a user with email ${email} already exists`);
      throw err;
    }
    await trx('sso_identities').insert({ id: newId('sso', r.now), tenant_id: r.tenantId, user_id: userId, provider: r.provider, subject: r.subject, role: r.role, created_at: r.now, last_sign_in_at: r.now });
    return { userId, scopes };
  },

  /** A known identity the provider no longer gives access: its user's tokens are revoked (nothing is created). */
  async cutOff(db: Queryable, provider: string, subject: string, now: number): Promise<boolean> {
    const identity = (await db('sso_identities').where({ provider, subject }).first()) as { user_id: string; tenant_id: string } | undefined;
    if (!identity) return false;
    await this.revokeBeyond(db, identity.user_id, identity.tenant_id, [], now);
    return true;
  },

  async revokeBeyond(db: Queryable, userId: string, tenantId: string, allowed: Scope[], now: number): Promise<void> {
    await tokenRepository.revokeBeyond(db, userId, tenantId, allowed, now);
  },

  async isSsoUser(db: Queryable, userId: string): Promise<boolean> {
    return Boolean(await db('sso_identities').where({ user_id: userId }).first('id'));
  },
};

/** `tenants` by id, else by name (a mapping may name either). */
export async function tenantIdFor(db: Queryable, idOrName: string): Promise<string | null> {
  const row = ((await db('tenants').where({ id: idOrName }).first('id')) ?? (await db('tenants').where({ name: idOrName }).first('id'))) as { id: string } | undefined;
  return row?.id ?? null;
}
