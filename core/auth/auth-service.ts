import type { Db } from '../db/create-db.ts';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import { userRepository } from './user-repository.ts';
import { tenantRepository, type Tenant } from './tenant-repository.ts';
import { tokenRepository, type ApiToken } from './token-repository.ts';
import type { AdminService } from './admin-service.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { Scope } from '../domain/scopes.ts';

export interface LoginResult {
  token: string;
  token_type: 'Bearer';
  token_id: string;
  expires_at: string;
  scopes: Scope[];
  tenant_id: string;
  user_id: string;
}

/** Who is calling: the tenant and the token behind a request (GET /api/user/me). */
export interface WhoAmI {
  tenant: Pick<Tenant, 'id' | 'name' | 'tier'>;
  token: Pick<ApiToken, 'id' | 'name' | 'kind' | 'scopes' | 'expires_at'>;
  user_id: string | null;
}

/** Email + password login, issuing short-lived tokens that carry the user's scopes. */
export class AuthService {
  readonly #db: Db;
  readonly #admin: AdminService;
  /** Shared with AdminService: one bound on concurrent hashes for the whole process. */
  readonly passwords: PasswordHasher;
  readonly #ttlMs: number;
  #dummyHash: Promise<string> | null = null;

  constructor(db: Db, admin: AdminService, passwords: PasswordHasher, loginTokenTtlSeconds: number) {
    this.#db = db;
    this.#admin = admin;
    this.passwords = passwords;
    this.#ttlMs = loginTokenTtlSeconds * 1000;
  }

  /** ServerBusyError (503 server_busy) when too many password hashes are running and waiting. */
  async login(email: string, password: string): Promise<LoginResult> {
    const found = await userRepository.findCredentialsByEmail(this.#db, email.toLowerCase());
    // An unknown email still pays for one hash, so timing does not reveal which emails exist.
    this.#dummyHash ??= this.passwords.hash('not-a-password').catch((err: unknown) => {
      this.#dummyHash = null; // a refused (busy) dummy hash must not stay cached
      throw err;
    });
    // A single sign-on user has no password (its hash is not a scrypt string): verified against the dummy like an unknown email.
    const usable = found?.passwordHash.startsWith('scrypt$') ? found.passwordHash : null;
    const ok = await this.passwords.verify(password, usable ?? (await this.#dummyHash));
    if (!found || !usable || !ok || found.user.disabled) throw new UnauthorizedError('Invalid email or password.', 'invalid_credentials');
    // Told only to whoever knows the password, so it reveals nothing about which accounts exist.
    if (!(await tenantRepository.passwordLoginAllowed(this.#db, found.user.tenant_id))) {
      throw new ForbiddenError('Password sign-in is turned off for your tenant: sign in with single sign-on.', 'password_login_disabled');
    }
    if (this.passwords.needsRehash(found.passwordHash)) {
      await userRepository.setPasswordHash(this.#db, found.user.id, await this.passwords.hash(password), Date.now());
    }
    const { record, token } = await this.#admin.createToken(found.user.tenant_id, {
      name: 'login',
      kind: 'login',
      userId: found.user.id,
      scopes: found.user.scopes,
      expiresAt: Date.now() + this.#ttlMs,
    });
    return {
      token,
      token_type: 'Bearer',
      token_id: record.id,
      expires_at: record.expires_at!,
      scopes: record.scopes,
      tenant_id: record.tenant_id,
      user_id: found.user.id,
    };
  }

  /** The caller's tenant and token; both exist, since the request was authenticated with them. */
  async whoAmI(caller: { tenantId: string; tokenId: string; userId: string | null }): Promise<WhoAmI> {
    const [tenant, token] = await Promise.all([
      tenantRepository.findById(this.#db, caller.tenantId),
      tokenRepository.findById(this.#db, caller.tokenId),
    ]);
    return {
      tenant: { id: tenant!.id, name: tenant!.name, tier: tenant!.tier },
      token: { id: token!.id, name: token!.name, kind: token!.kind, scopes: token!.scopes, expires_at: token!.expires_at },
      user_id: caller.userId,
    };
  }

  /** Revokes the token a request came with; revoking twice is harmless. */
  logout(tokenId: string): Promise<void> {
    return tokenRepository.revoke(this.#db, tokenId, Date.now());
  }
}
