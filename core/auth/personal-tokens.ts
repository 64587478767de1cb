import type { Db } from '../db/create-db.ts';
import type { Scope } from '../domain/scopes.ts';
import { ForbiddenError, InputError, NotFoundError } from '../errors.ts';
import type { AdminService, IssuedToken } from './admin-service.ts';
import { tokenRepository, type ApiToken } from './token-repository.ts';

/**
 * A user's own API tokens (POST /api/user/tokens): made from a sign-in session (a login
 * token: a leaked API token cannot mint more), with scopes the session holds (the user's
 * role), expiring within `maxDays` (a provider's removal of a user is seen at their next
 * sign-in only; the expiry bounds what a forgotten token is worth).
 */
/** Who asks: the request's tenant, token and user. */
export interface TokenOwner {
  tenantId: string;
  tokenId: string;
  userId: string | null;
}

export class PersonalTokenService {
  readonly #db: Db;
  readonly #admin: AdminService;
  readonly #maxDays: number;

  constructor(db: Db, admin: AdminService, maxDays: number) {
    this.#db = db;
    this.#admin = admin;
    this.#maxDays = maxDays;
  }

  async create(caller: TokenOwner, request: { name: string; scopes: Scope[]; expiresAt: number }): Promise<IssuedToken> {
    const session = await this.#session(caller);
    const beyond = request.scopes.filter((s) => !session.scopes.includes(s));
    if (beyond.length) throw new ForbiddenError(`Your sign-in does not hold ${beyond.join(', ')}: a token can carry only scopes you have.`, 'insufficient_scope', { scopes: beyond });
    if (request.expiresAt > Date.now() + this.#maxDays * 86_400_000) {
      throw new InputError(`expires_at may be at most ${this.#maxDays} days from now.`, 'invalid_expiry');
    }
    return this.#admin.createToken(caller.tenantId, { name: request.name, kind: 'api', userId: caller.userId, scopes: request.scopes, expiresAt: request.expiresAt });
  }

  async list(caller: TokenOwner): Promise<ApiToken[]> {
    return caller.userId ? tokenRepository.listPersonal(this.#db, caller.tenantId, caller.userId) : [];
  }

  async revoke(caller: TokenOwner, id: string): Promise<ApiToken> {
    const token = await tokenRepository.findById(this.#db, id);
    if (!token || !caller.userId || token.user_id !== caller.userId || token.tenant_id !== caller.tenantId || token.kind !== 'api') throw new NotFoundError('Token');
    await tokenRepository.revoke(this.#db, id, Date.now());
    return (await tokenRepository.findById(this.#db, id))!;
  }

  async #session(caller: TokenOwner): Promise<ApiToken> {
    const token = await tokenRepository.findById(this.#db, caller.tokenId);
    if (!caller.userId || !token || token.kind !== 'login') {
      throw new ForbiddenError('Personal tokens are made from a signed-in session (password or single sign-on), not with an API token.', 'sign_in_required');
    }
    return token;
  }
}
