import type { Db } from '../db/create-db.ts';
import { UnauthorizedError } from '../errors.ts';
import { userRepository } from './user-repository.ts';
import type { AdminService } from './admin-service.ts';
import { hashPassword, needsRehash, verifyPassword, type ScryptParams } from './password.ts';
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

/** Email + password login, issuing short-lived tokens that carry the user's scopes. */
export class AuthService {
  readonly #db: Db;
  readonly #admin: AdminService;
  readonly #scrypt: ScryptParams;
  readonly #ttlMs: number;
  #dummyHash: Promise<string> | null = null;

  constructor(db: Db, admin: AdminService, scrypt: ScryptParams, loginTokenTtlSeconds: number) {
    this.#db = db;
    this.#admin = admin;
    this.#scrypt = scrypt;
    this.#ttlMs = loginTokenTtlSeconds * 1000;
  }

  async login(email: string, password: string): Promise<LoginResult> {
    const found = await userRepository.findCredentialsByEmail(this.#db, email.toLowerCase());
    // An unknown email still pays for one hash, so timing does not reveal which emails exist.
    this.#dummyHash ??= hashPassword('not-a-password', this.#scrypt);
    const ok = await verifyPassword(password, found?.passwordHash ?? (await this.#dummyHash));
    if (!found || !ok || found.user.disabled) throw new UnauthorizedError('Invalid email or password.', 'invalid_credentials');
    if (needsRehash(found.passwordHash, this.#scrypt)) {
      await userRepository.setPasswordHash(this.#db, found.user.id, await hashPassword(password, this.#scrypt), Date.now());
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
}
