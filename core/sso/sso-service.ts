import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { SsoConfig } from '../../config/sso-config.ts';
import type { AdminService } from '../auth/admin-service.ts';
import type { LoginResult } from '../auth/auth-service.ts';
import type { Db } from '../db/create-db.ts';
import type { UserRole } from '../domain/roles.ts';
import { UnauthorizedError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { ssoIdentityRepository as ssoUsers, tenantIdFor } from './sso-identity-repository.ts';
import { ssoLoginRepository as logins, type SsoOutcome } from './sso-login-repository.ts';
import { mapClaims } from './sso-mapping.ts';
import { SsoProviders } from './sso-providers.ts';
import { SsoRefusal } from './sso-refusal.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
// The console collects the outcome right after the redirect; a minute is plenty.
const HANDOFF_MS = 60_000;

/**
 * Single sign-on with OpenID Connect: authorization code with PKCE, state and nonce
 * (docs/sso.md). The console starts a sign-in with a random browser binding it keeps in
 * its tab; the provider sends the browser back to `callback`, which checks the answer
 * (state once only, code exchange with the verifier, ID token: issuer, audience, JWKS
 * signature, expiry, nonce) and maps the groups, writing nothing but the sign-in's own
 * row; the console then trades the one-time hand-off code and its binding for a login
 * token (`exchange`), which is when the user is made or updated. A callback URL taken to
 * another browser is useless there: that browser has not the binding.
 */
export class SsoService {
  readonly providers: SsoProviders;
  readonly #db: Db;
  readonly #config: SsoConfig;
  readonly #admin: AdminService;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  /** The clock (tests move it to expire tokens without waiting). */
  now: () => number = () => Date.now();

  constructor(db: Db, config: SsoConfig, admin: AdminService, loginTokenTtlSeconds: number, logger: Logger) {
    this.#db = db;
    this.#config = config;
    this.providers = new SsoProviders(config);
    this.#admin = admin;
    this.#ttlMs = loginTokenTtlSeconds * 1000;
    this.#logger = logger;
  }

  /** The provider's authorization URL for a new sign-in bound to `binding` (kept by the console). */
  async start(providerId: string, binding: string): Promise<{ authorization_url: string }> {
    const provider = this.providers.get(providerId);
    const { config } = await this.#configure(provider);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const now = this.now();
    await logins.insert(this.#db, { id: newId('sso', now), provider: provider.id, state_hash: sha256(state), binding_hash: sha256(binding), nonce, code_verifier: verifier, created_at: now, expires_at: now + this.#config.loginTimeoutSeconds * 1000 });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#config.redirectUri!,
      scope: provider.scopes.join(' '),
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { authorization_url: url.href };
  }

  /** The provider's answer (the callback's query). Resolves with the console's redirect target, success or not. */
  async callback(query: URLSearchParams): Promise<string> {
    try {
      const handoff = await this.#callback(query);
      return `/console#/sso?handoff=${handoff}`;
    } catch (err) {
      if (!(err instanceof SsoRefusal)) throw err;
      this.#logger.warn({ code: err.code, detail: err.detail }, 'single sign-on refused');
      return `/console#/sso?error=${err.code}`;
    }
  }

  async #callback(query: URLSearchParams): Promise<string> {
    const state = query.get('state');
    const row = state ? await logins.findByState(this.#db, sha256(state)) : null;
    if (!row) throw new SsoRefusal('sso_unknown_state', 'no sign-in was started with this state');
    const now = this.now();
    if (!(await logins.claim(this.#db, row.id, now))) throw new SsoRefusal('sso_state_replayed', `the answer for sign-in ${row.id} already arrived`);
    if (row.expires_at <= now) throw new SsoRefusal('sso_expired', `sign-in ${row.id} started more than ${this.#config.loginTimeoutSeconds} s ago`);
    if (query.get('error')) throw new SsoRefusal('sso_provider_error', `the provider answered ${query.get('error')}: ${query.get('error_description') ?? ''}`);
    const provider = this.providers.get(row.provider);
    const { config, keep } = await this.#configure(provider);
    const current = new URL(this.#config.redirectUri!);
    for (const [k, v] of query) current.searchParams.append(k, v);
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: row.code_verifier, expectedState: state!, expectedNonce: row.nonce, idTokenExpected: true });
      claims = tokens.claims() as Record<string, unknown>;
      keep();
    } catch (err) {
      const cause = (err as { cause?: { message?: string; code?: string } }).cause;
      throw new SsoRefusal('sso_invalid_token', `${(err as { code?: string }).code ?? 'error'}: ${(err as Error).message}${cause?.message ? ` (${cause.code ? `${cause.code}: ` : ''}${cause.message})` : ''}`);
    }
    const subject = String(claims.sub);
    let mapped: { tenant: string; role: UserRole };
    try {
      mapped = mapClaims(provider, claims);
    } catch (err) {
      if (err instanceof SsoRefusal && (await ssoUsers.cutOff(this.#db, provider.id, subject, now))) this.#logger.warn({ provider: provider.id, subject }, 'single sign-on: a known identity lost its access; its tokens were revoked');
      throw err;
    }
    const tenantId = await tenantIdFor(this.#db, mapped.tenant);
    if (!tenantId) throw new SsoRefusal('sso_unknown_tenant', `sso.providers[${provider.id}] maps to tenant "${mapped.tenant}", which does not exist`);
    const email = typeof claims.email === 'string' && claims.email_verified !== false ? claims.email : null;
    const name = typeof claims.name === 'string' ? claims.name : null;
    const handoff = randomBytes(32).toString('base64url');
    const outcome: SsoOutcome = { subject, email, name, tenantId, role: mapped.role };
    await logins.succeed(this.#db, row.id, outcome, sha256(handoff), now + HANDOFF_MS);
    return handoff;
  }

  /** The console collects a sign-in: the hand-off code from the redirect and the binding from its tab. */
  async exchange(handoff: string, binding: string): Promise<LoginResult & { role: UserRole }> {
    const row = await logins.findByHandoff(this.#db, sha256(handoff));
    const now = this.now();
    const refuse = () => new UnauthorizedError('This single sign-on hand-off is unknown, expired, already used or from another browser. Sign in again.', 'sso_handoff_invalid');
    if (!row || !row.outcome || (row.handoff_expires_at ?? 0) <= now) throw refuse();
    const a = Buffer.from(row.binding_hash, 'hex');
    const b = Buffer.from(sha256(binding), 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw refuse();
    if (!(await logins.exchange(this.#db, row.id, now))) throw refuse();
    const outcome = logins.outcomeOf(row)!;
    const role = outcome.role as UserRole;
    try {
      return await this.#db.transaction(async (trx) => {
        const user = await ssoUsers.upsert(trx, { provider: row.provider, subject: outcome.subject, email: outcome.email, name: outcome.name, tenantId: outcome.tenantId, role, now });
        const { record, token } = await this.#admin.createToken(outcome.tenantId, { name: `sso:${row.provider}`, kind: 'login', userId: user.userId, scopes: user.scopes, expiresAt: now + this.#ttlMs }, trx);
        return { token, token_type: 'Bearer' as const, token_id: record.id, expires_at: record.expires_at!, scopes: record.scopes, tenant_id: record.tenant_id, user_id: user.userId, role };
      });
    } catch (err) {
      if (!(err instanceof SsoRefusal)) throw err;
      this.#logger.warn({ code: err.code, detail: err.detail }, 'single sign-on refused');
      const messages: Record<string, string> = {
        sso_email_taken: 'A local account already uses the email your provider gave; an administrator must remove it before you can sign in with single sign-on.',
        sso_user_disabled: 'Your Rampart user is disabled; an administrator must enable it.',
      };
      throw new UnauthorizedError(messages[err.code] ?? 'Your identity belongs to another tenant than your groups now name; an administrator must remove your user first.', err.code);
    }
  }

  #configure(provider: ReturnType<SsoProviders['get']>) {
    return this.providers.configure(provider, Math.round((this.now() - Date.now()) / 1000));
  }
}
