import type { Db } from '../db/create-db.ts';
import { changeClock } from '../db/change-clock.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { tenantRepository, type Tenant } from './tenant-repository.ts';
import { tokenRepository, type ApiToken, type TokenKind } from './token-repository.ts';
import { userRepository, type User } from './user-repository.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { Scope, Tier } from '../domain/scopes.ts';
import { generateToken, hashToken, tokenDisplayPrefix } from './token-codec.ts';

export interface IssuedToken {
  record: ApiToken;
  /** The token itself: returned once, at creation, and never stored. */
  token: string;
}

export interface TokenRequest {
  name: string;
  scopes: Scope[];
  expiresAt: number | null;
  userId?: string | null;
  kind?: TokenKind;
  /** Use this value instead of a random one (the bootstrap token from config). */
  value?: string;
}

/** Platform administration: tenants, their users and their API tokens. */
export class AdminService {
  readonly #db: Db;
  readonly #passwords: PasswordHasher;

  constructor(db: Db, passwords: PasswordHasher) {
    this.#db = db;
    this.#passwords = passwords;
  }

  async createTenant(input: { name: string; tier: Tier }, db = this.#db): Promise<Tenant> {
    const id = newId('ten');
    try {
      await tenantRepository.insert(db, { id, name: input.name, tier: input.tier, now: Date.now() });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`A tenant named "${input.name}" already exists.`, 'tenant_exists');
      throw err;
    }
    return (await tenantRepository.findById(db, id))!;
  }

  async getTenant(id: string): Promise<Tenant> {
    const tenant = await tenantRepository.findById(this.#db, id);
    if (!tenant) throw new NotFoundError('Tenant');
    return tenant;
  }

  listTenants(page: PageRequest): Promise<Page<Tenant>> {
    return tenantRepository.list(this.#db, page);
  }

  /** Epoch ms of the latest change to any tenant, or null when there is none: the list's Last-Modified. */
  tenantsChangedAt(): Promise<number | null> {
    return tenantRepository.lastUpdated(this.#db);
  }

  /** The tenant's updated_at (epoch ms), or null when there is none: for Last-Modified. */
  async tenantUpdatedAt(id: string): Promise<number | null> {
    const tenant = await tenantRepository.findById(this.#db, id);
    return tenant ? Date.parse(tenant.updated_at) : null;
  }

  /**
   * When a tenant's user list last changed (0 if never), or null for an unknown tenant,
   * whose list answers 404, never 304.
   */
  async usersChangedAt(tenantId: string): Promise<number | null> {
    if (!(await tenantRepository.findById(this.#db, tenantId))) return null;
    return (await changeClock.lastChanged(this.#db, tenantId, 'users')) ?? 0;
  }

  /** When a tenant's token list last changed, or null for an unknown tenant (as usersChangedAt). */
  async tokensChangedAt(tenantId: string): Promise<number | null> {
    if (!(await tenantRepository.findById(this.#db, tenantId))) return null;
    return tokenRepository.listLastModified(this.#db, tenantId);
  }

  async updateTenant(id: string, changes: { name?: string; tier?: Tier }): Promise<Tenant> {
    await this.getTenant(id);
    try {
      await tenantRepository.update(this.#db, id, changes, Date.now());
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`A tenant named "${changes.name}" already exists.`, 'tenant_exists');
      throw err;
    }
    return this.getTenant(id);
  }

  async createUser(tenantId: string, input: { email: string; name: string; password: string; scopes: Scope[] }): Promise<User> {
    await this.getTenant(tenantId);
    const id = newId('usr');
    const passwordHash = await this.#passwords.hash(input.password);
    try {
      await userRepository.insert(this.#db, { id, tenantId, email: input.email.toLowerCase(), name: input.name, passwordHash, scopes: input.scopes, now: Date.now() });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('A user with this email already exists.', 'user_exists');
      throw err;
    }
    return (await userRepository.findById(this.#db, id))!;
  }

  async listUsers(tenantId: string, page: PageRequest): Promise<Page<User>> {
    await this.getTenant(tenantId);
    return userRepository.listByTenant(this.#db, tenantId, page);
  }

  /** Deletes a user; its tokens go with it (foreign-key cascade). */
  async deleteUser(id: string): Promise<void> {
    if (!(await userRepository.delete(this.#db, id))) throw new NotFoundError('User');
  }

  async createToken(tenantId: string, request: TokenRequest, db = this.#db): Promise<IssuedToken> {
    if (request.expiresAt !== null && request.expiresAt <= Date.now()) {
      throw new InputError('expires_at must be in the future.', 'invalid_expiry');
    }
    if (request.userId) {
      const user = await userRepository.findById(db, request.userId);
      if (!user || user.tenant_id !== tenantId) throw new NotFoundError('User');
    }
    const token = request.value ?? generateToken();
    const id = newId('tok');
    await tokenRepository.insert(db, {
      id,
      tenantId,
      userId: request.userId ?? null,
      name: request.name,
      kind: request.kind ?? 'api',
      tokenHash: hashToken(token),
      tokenPrefix: tokenDisplayPrefix(token),
      scopes: [...new Set(request.scopes)],
      expiresAt: request.expiresAt,
      now: Date.now(),
    });
    return { record: (await tokenRepository.findById(db, id))!, token };
  }

  async listTokens(tenantId: string, page: PageRequest, includeRevoked: boolean): Promise<Page<ApiToken>> {
    await this.getTenant(tenantId);
    return tokenRepository.listByTenant(this.#db, tenantId, page, includeRevoked);
  }

  async revokeToken(id: string): Promise<ApiToken> {
    const existing = await tokenRepository.findById(this.#db, id);
    if (!existing) throw new NotFoundError('Token');
    await tokenRepository.revoke(this.#db, id, Date.now());
    return (await tokenRepository.findById(this.#db, id))!;
  }
}
